import CMosquitto
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One connection to a broker through libmosquitto: a persistent session under a stable client
/// id, a network thread of its own running `mosquitto_loop_forever`, reconnection with backoff
/// (1 s doubling to 30 s, also after failures libmosquitto's loop takes as final), a last will. Publishing is thread-safe and never blocks on the
/// network; `onConnect`, `onDisconnect`, `onPublished` (the message id a PUBACK acknowledged) and
/// `onLog` are called on libmosquitto's thread, so they must be quick.
public final class MQTTClient: @unchecked Sendable {
    private let handle: OpaquePointer
    public let settings: MQTTSettings
    /// Set before `start`; read on libmosquitto's thread.
    public var onConnect: @Sendable (Result<Void, MQTTError>) -> Void = { _ in }
    public var onDisconnect: @Sendable (MQTTError?) -> Void = { _ in }
    public var onPublished: @Sendable (Int32) -> Void = { _ in }
    public var onLog: @Sendable (String) -> Void = { _ in }
    /// A message on a subscribed topic: its topic, its payload, and whether it came retained (the
    /// broker's stored message, sent at a subscription; MQTT 3.1.1 clears the flag on a retained
    /// message published while the subscription stands, which then comes as a live one).
    public var onMessage: @Sendable (String, [UInt8], _ retained: Bool) -> Void = { _, _, _ in }

    private static let initialised: Void = { mosquitto_lib_init() }()

    /// A client for `settings` that has not connected yet. `will` is published by the broker
    /// (retained, QoS 1) when the connection is lost without a goodbye.
    public init(_ settings: MQTTSettings, will: (topic: String, payload: String)?) throws(MQTTError) {
        _ = Self.initialised
        self.settings = settings
        guard let h = mosquitto_new(settings.clientID, false, nil) else {
            throw MQTTError("MQTT: cannot create a client (\(String(cString: strerror(errno))))")
        }
        handle = h
        mosquitto_user_data_set(h, Unmanaged.passUnretained(self).toOpaque())
        do throws(MQTTError) {
            // MQTT 3.1.1, as every broker and Home Assistant speak it.
            try check(mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311)), "setting the protocol")
            try check(mosquitto_reconnect_delay_set(h, 1, 30, true), "setting the reconnect delay")
            if let user = settings.username {
                try check(mosquitto_username_pw_set(h, user, settings.password), "setting the username")
            }
            if let ca = settings.caFile {
                try check(mosquitto_tls_set(h, ca, nil, settings.certFile, settings.keyFile, nil), "setting TLS (ca_file \(ca))")
            }
            if let will {
                let bytes = Array(will.payload.utf8)
                try check(mosquitto_will_set(h, will.topic, Int32(bytes.count), bytes, 1, true), "setting the last will")
            }
        } catch {
            mosquitto_destroy(h)
            throw error
        }
        mosquitto_connect_callback_set(h) { _, obj, rc in
            guard let obj else { return }
            let me = Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue()
            if rc == 0 {
                me.onConnect(.success(()))
            } else {
                me.onConnect(.failure(MQTTError("the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))")))
            }
        }
        mosquitto_disconnect_callback_set(h) { _, obj, rc in
            guard let obj else { return }
            let me = Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue()
            me.onDisconnect(rc == 0 ? nil : MQTTError("connection lost (\(String(cString: mosquitto_strerror(rc))))"))
        }
        mosquitto_publish_callback_set(h) { _, obj, mid in
            guard let obj else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().onPublished(mid)
        }
        mosquitto_message_callback_set(h) { _, obj, message in
            guard let obj, let m = message?.pointee, let topic = m.topic else { return }
            let payload = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(m.payloadlen))) } ?? []
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().onMessage(String(cString: topic), payload, m.retain)
        }
        mosquitto_log_callback_set(h) { _, obj, level, text in
            guard let obj, let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            Unmanaged<MQTTClient>.fromOpaque(obj).takeUnretainedValue().onLog(String(cString: text))
        }
    }

    deinit {
        mosquitto_destroy(handle)
    }

    private func check(_ rc: Int32, _ what: String) throws(MQTTError) {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            throw MQTTError("MQTT: \(what) failed: \(String(cString: mosquitto_strerror(rc)))")
        }
    }

    /// Set by `stop`: the network thread ends.
    private let stopping = Atomic<Bool>(false)

    /// Starts the network thread: it connects (blocking there, not here: a name lookup or an
    /// unreachable host does not hold up the caller), runs libmosquitto's loop, and when the loop
    /// gives up (a refused connection, a TLS handshake that fails: libmosquitto's own loop
    /// treats those as final) tries again after 1 s, doubling to 30 s, for as long as the
    /// client lives.
    public func start() throws(MQTTError) {
        // Our thread, not mosquitto_loop_start's: tell the library other threads publish.
        try check(mosquitto_threaded_set(handle, true), "setting up threads")
        let me = self
        let thread = Thread {
            var delay: UInt32 = 1
            var first = true
            while !me.stopping.load(ordering: .acquiring) {
                let rc = first ? mosquitto_connect(me.handle, me.settings.host, Int32(me.settings.port), Int32(me.settings.keepalive))
                               : mosquitto_reconnect(me.handle)
                if rc == MOSQ_ERR_SUCCESS.rawValue {
                    first = false
                    delay = 1
                    // Returns when we disconnect, or on an error its own reconnection does not cover.
                    let end = mosquitto_loop_forever(me.handle, 1000, 1)
                    if me.stopping.load(ordering: .acquiring) { break }
                    me.onDisconnect(MQTTError("the connection ended (\(Self.describe(end)))"))
                } else {
                    me.onDisconnect(MQTTError("cannot reach the broker at \(me.settings.host):\(me.settings.port): \(Self.describe(rc))"))
                }
                var waited: UInt32 = 0
                while waited < delay * 10, !me.stopping.load(ordering: .acquiring) {
                    usleep(100_000)
                    waited += 1
                }
                delay = min(delay * 2, 30)
            }
        }
        thread.name = "mqtt"
        thread.start()
    }

    /// A libmosquitto result as words; for MOSQ_ERR_ERRNO, the system's.
    static func describe(_ rc: Int32) -> String {
        rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : String(cString: mosquitto_strerror(rc))
    }

    /// Hands a message to libmosquitto; returns its message id (a QoS 1 message is acknowledged
    /// with it through `onPublished`), or nil when it could not be queued. Not connected, a QoS 1
    /// message waits in libmosquitto's queue for the connection.
    public func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false) -> Int32? {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, qos, retain) }
        return rc == MOSQ_ERR_SUCCESS.rawValue ? mid : nil
    }

    /// Subscribes to `topic`; safe from `onConnect`. False when it could not be sent.
    @discardableResult
    public func subscribe(_ topic: String, qos: Int32 = 1) -> Bool {
        mosquitto_subscribe(handle, nil, topic, qos) == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Unsubscribes from `topic` (a persistent session keeps what an earlier run subscribed to).
    public func unsubscribe(_ topic: String) {
        _ = mosquitto_unsubscribe(handle, nil, topic)
    }

    /// Ends the network thread. `goodbye`: a DISCONNECT, so the broker drops the last will;
    /// without it the connection just closes with the process, and the broker publishes the will.
    public func stop(goodbye: Bool) {
        stopping.store(true, ordering: .releasing)
        if goodbye { mosquitto_disconnect(handle) }
    }
}
