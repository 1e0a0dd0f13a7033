import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Server
import Protocol

/// Limits a client meets before any route sees its request:
/// - a request's head must arrive within `head` of the connection opening or of the last
///   answer, and its body within `body` of its head: a client that sends a byte every few
///   seconds (which keeps an idle timer quiet) is closed. An answer being sent, an event
///   stream among them, is not limited.
/// - a body over its limit (`photoBytes` for `POST /api/captures`, `bodyBytes` otherwise) is
///   answered 413 and the connection closed at once, whether `Content-Length` says so or the
///   bytes show it: nothing more of it is read.
final class RequestLimits: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let head: TimeAmount
    let body: TimeAmount
    let bodyBytes: Int
    let photoBytes: Int
    let headers: SecurityHeaderSet
    private var timer: Scheduled<Void>?
    private var limit = 0
    private var received = 0
    private var refused = false

    init(head: TimeAmount, body: TimeAmount, bodyBytes: Int, photoBytes: Int, headers: SecurityHeaderSet) {
        self.headers = headers
        self.head = head
        self.body = body
        self.bodyBytes = bodyBytes
        self.photoBytes = photoBytes
    }

    private func arm(_ amount: TimeAmount, context: ChannelHandlerContext) {
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: amount) { channel.close(promise: nil) }
    }

    func handlerAdded(context: ChannelHandlerContext) { arm(head, context: context) }

    func handlerRemoved(context: ChannelHandlerContext) { timer?.cancel() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }  // the rest of a refused body is not passed on
        switch unwrapInboundIn(data) {
        case .head(let request):
            arm(body, context: context)
            limit = request.path?.hasPrefix("/api/captures") == true ? photoBytes : bodyBytes
            received = 0
            if let length = request.headerFields[.contentLength].flatMap(Int.init), length > limit {
                return refuse(context: context)
            }
        case .body(let bytes):
            received += bytes.readableBytes
            if received > limit { return refuse(context: context) }
        case .end:
            timer?.cancel()
            timer = nil
        }
        context.fireChannelRead(data)
    }

    private func refuse(context: ChannelHandlerContext) {
        refused = true
        timer?.cancel()
        let message = CommandError("the body is over the limit of \(limit >= 1 << 20 ? "\(limit >> 20) MiB (http.max_photo_mib)" : "\(limit >> 10) KiB (http.max_body_kib)")").json
        var fields: HTTPFields = [.contentType: "application/json", .contentLength: String(message.count), .connection: "close"]
        headers.apply(to: &fields, noStore: true)
        let response = HTTPResponse(status: .contentTooLarge, headerFields: fields)
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: message))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), !refused { arm(head, context: context) }
        context.write(data, promise: promise)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }
}
