import NIOCore

/// Splits the byte stream into newline-terminated lines of at most `maximum` bytes (a `\r`
/// before the newline is dropped). A longer line is reported once as `.tooLong` with its length
/// and skipped to its end, without holding it in memory.
public struct LineFramer: ByteToMessageDecoder {
    public typealias InboundOut = ClientLine

    public let maximum: Int
    /// Bytes of an over-long line skipped so far (nil: not skipping).
    private var skipping: Int?

    public init(maximum: Int = 64 * 1024) { self.maximum = maximum }

    /// The next line in `buffer`, consuming it; nil when no whole line is there yet (the bytes
    /// wait in `buffer`, except those of an over-long line, which are dropped as they come).
    public mutating func next(_ buffer: inout ByteBuffer) -> ClientLine? {
        while true {
            let newline = buffer.readableBytesView.firstIndex(of: 0x0A)
            if let skipped = skipping {
                guard let newline else {
                    skipping = skipped + buffer.readableBytes
                    buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                    return nil
                }
                let n = newline - buffer.readerIndex
                buffer.moveReaderIndex(forwardBy: n + 1)
                skipping = nil
                return .tooLong(skipped + n)
            }
            guard let newline else {
                if buffer.readableBytes > maximum {
                    skipping = buffer.readableBytes
                    buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                    continue
                }
                return nil
            }
            let n = newline - buffer.readerIndex
            if n > maximum {
                buffer.moveReaderIndex(forwardBy: n + 1)
                return .tooLong(n)
            }
            var line = buffer.readSlice(length: n)!
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytesView.last == UInt8(ascii: "\r") { line = line.getSlice(at: line.readerIndex, length: n - 1)! }
            return .line(line)
        }
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let line = next(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A last line without its newline is not a command: nothing to answer on a closed input.
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        return .needMoreData
    }
}
