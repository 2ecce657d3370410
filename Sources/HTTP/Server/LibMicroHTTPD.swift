import CLibMicroHTTPD
import CMicroHTTPDShims
import Glibc

// Every call into libmicrohttpd (directly or through CMicroHTTPDShims) is in this file.

/// A running libmicrohttpd daemon. The corresponding C type is `struct MHD_Daemon`.
///
/// Used by ``HTTPServer`` under its life-cycle lock only, hence `@unchecked Sendable`.
final class Daemon: @unchecked Sendable {
  private var pointer: OpaquePointer?

  /// Starts libmicrohttpd on the listening socket with the callbacks of `core`, which must
  /// outlive the daemon. The corresponding C function is `MHD_start_daemon`.
  init?(listeningSocket: Int32, configuration: HTTPServerConfiguration, core: ServerCore) {
    var settings = cmicrohttpdshims_settings()
    settings.listen_fd = listeningSocket
    settings.threads = UInt32(clamping: max(1, configuration.threads))
    settings.connection_timeout = UInt32(clamping: max(1, configuration.connectionTimeout))
    settings.connection_limit = UInt32(clamping: max(1, configuration.maximumConnections))
    settings.per_address_limit = UInt32(clamping: max(1, configuration.maximumConnectionsPerAddress))
    settings.memory_limit = max(8 * 1024, configuration.connectionMemoryLimit)
    settings.context = Unmanaged.passUnretained(core).toOpaque()
    settings.access_handler = { cls, connection, _, method, version, upload, uploadSize, requestContext in
      guard let cls, let connection, let uploadSize, let requestContext else { return .NO }
      let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
      let ok = core.handle(
        Connection(connection), method: method, version: version, upload: upload, uploadSize: uploadSize,
        requestContext: requestContext)
      return ok ? .YES : .NO
    }
    settings.request_completed = { cls, connection, requestContext, termination in
      guard let cls, let connection, let requestContext, let raw = requestContext.pointee else { return }
      requestContext.pointee = nil
      let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
      let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
      core.completed(
        context, connection: Connection(connection), cleanly: termination == .REQUEST_TERMINATED_COMPLETED_OK)
    }
    settings.connection_notification = { cls, connection, socketContext, code in
      guard let cls, let connection, let socketContext else { return }
      let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
      if code == .CONNECTION_NOTIFY_STARTED {
        let record = core.connectionStarted(Connection(connection))
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
      } else if let raw = socketContext.pointee {
        socketContext.pointee = nil
        core.connectionClosed(Unmanaged<ConnectionRecord>.fromOpaque(raw).takeRetainedValue())
      }
    }
    settings.uri_callback = { cls, uri, connection in
      guard let cls, let connection else { return nil }
      let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
      let target = uri.map { String(cString: $0) } ?? ""
      let context = core.requestBegan(Connection(connection), target: target)
      return Unmanaged.passRetained(context).toOpaque()
    }
    guard let daemon = cmicrohttpdshims_start(&settings) else { return nil }
    pointer = daemon
  }

  deinit { stop() }

  /// Stops accepting connections; the listening socket stays open (and ours to close) until
  /// after ``stop()``. The corresponding C function is `MHD_quiesce_daemon`.
  func quiesce() {
    if let pointer { _ = MHD_quiesce_daemon(pointer) }
  }

  /// Closes every connection and joins libmicrohttpd's threads; every suspended connection must
  /// have been resumed. The corresponding C function is `MHD_stop_daemon`.
  func stop() {
    if let pointer { MHD_stop_daemon(pointer) }
    pointer = nil
  }
}

/// A libmicrohttpd connection. The corresponding C type is `struct MHD_Connection`.
///
/// libmicrohttpd serves a connection from one thread at a time; the one call that may come from
/// elsewhere is ``resume()`` (documented safe from any thread), which is why a worker may hold
/// one: hence `@unchecked Sendable`.
struct Connection: @unchecked Sendable {
  let pointer: OpaquePointer

  init(_ pointer: OpaquePointer) { self.pointer = pointer }

  /// The connection's socket. The corresponding C call is `MHD_get_connection_info` with
  /// `MHD_CONNECTION_INFO_CONNECTION_FD`.
  var socket: Int32 { cmicrohttpdshims_connection_socket(pointer) }

  /// The client's IP address as text ("127.0.0.1", "::1").
  var clientAddress: String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(CMICROHTTPDSHIMS_ADDRESS_LENGTH)) { buffer in
      let length = cmicrohttpdshims_client_address(pointer, buffer.baseAddress!, buffer.count)
      return length == 0 ? "-" : String(cString: buffer.baseAddress!)
    }
  }

  /// The pointer the connection notification left in the connection's socket context
  /// (`MHD_CONNECTION_INFO_SOCKET_CONTEXT`): its ``ConnectionRecord``.
  var socketContext: UnsafeMutableRawPointer? { cmicrohttpdshims_socket_context(pointer) }

  /// The status of the response queued, 0 when none (`MHD_CONNECTION_INFO_HTTP_STATUS`).
  var queuedStatus: Int { Int(cmicrohttpdshims_response_status(pointer)) }

  /// The request's header fields, in order. The corresponding C function is
  /// `MHD_get_connection_values_n`.
  func requestHeaders() -> HTTPHeaders {
    var headers = HTTPHeaders()
    withUnsafeMutablePointer(to: &headers) { headers in
      _ = MHD_get_connection_values_n(
        pointer, .HEADER_KIND,
        { cls, _, key, keySize, value, valueSize in
          guard let cls else { return .NO }
          let name = key.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: keySize), as: UTF8.self) }
          let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) }
          cls.assumingMemoryBound(to: HTTPHeaders.self).pointee.add(name ?? "", text ?? "")
          return .YES
        }, headers)
    }
    return headers
  }

  /// What libmicrohttpd 0.9.75 took silently in the request's head, found by walking its read
  /// buffer (`buffer` must come from the access handler's current, first call); nil when the
  /// head is well-formed, when the library is another version, or when the buffer is laid out
  /// in a way no known malformation explains. The corresponding C function is
  /// `cmicrohttpdshims_check_head`.
  func headMalformation(_ buffer: RequestHeadBuffer) -> HeadMalformation? {
    var field = 0
    switch cmicrohttpdshims_check_head(pointer, buffer.method, buffer.version, &field) {
    case CMICROHTTPDSHIMS_HEAD_BARE_LF: return .bareLF
    case CMICROHTTPDSHIMS_HEAD_NUL_IN_VALUE: return .nulInValue(field: field)
    case CMICROHTTPDSHIMS_HEAD_OBS_FOLD: return .obsFold
    case CMICROHTTPDSHIMS_HEAD_NO_NAME: return .noName
    default: return nil
    }
  }

  /// Takes the connection out of libmicrohttpd's event loop until ``resume()``; called from the
  /// access handler only. The corresponding C function is `MHD_suspend_connection`.
  func suspend() { MHD_suspend_connection(pointer) }

  /// Puts a suspended connection back; its access handler is called again. The corresponding C
  /// function is `MHD_resume_connection`.
  func resume() { MHD_resume_connection(pointer) }

  /// Queues `response`; false when libmicrohttpd refuses it (the connection is then closed).
  /// `closing` adds "Connection: close" (a server that is stopping). The corresponding C
  /// functions are `MHD_create_response_from_buffer`, `MHD_create_response_from_fd_at_offset64`,
  /// `MHD_add_response_header` and `MHD_queue_response`.
  func queue(_ response: consuming HTTPResponse, closing: Bool) -> Bool {
    let status = response.status
    guard let made = Self.makeResponse(&response) else { return false }
    defer { MHD_destroy_response(made) }
    for (name, value) in response.headers where !ASCII.equalsIgnoringCase(name, "Content-Length") {
      if MHD_add_response_header(made, name, value) == .NO {
        HTTPServer.reportProblem("response header \(name) not sent: libmicrohttpd refused it (a line break in it?)")
      }
    }
    if closing { _ = MHD_add_response_header(made, "Connection", "close") }
    return MHD_queue_response(pointer, UInt32(status), made) == .YES
  }

  /// A libmicrohttpd response holding `response`'s body, or nil.
  private static func makeResponse(_ response: inout HTTPResponse) -> OpaquePointer? {
    if response.status == 304 {
      // libmicrohttpd sends no body for a 304 but writes the body's size as its Content-Length,
      // which must then be the representation's (RFC 9110 section 8.6): a body of that size that
      // is never read.
      let length = response.headers["Content-Length"].flatMap { UInt64($0) } ?? 0
      return MHD_create_response_from_callback(
        length, 4096, { _, _, _, _ in MHD_CONTENT_READER_END_WITH_ERROR }, nil, nil)
    }
    switch response.body {
    case .bytes(let bytes):
      return bytes.withUnsafeBytes { buffer in
        MHD_create_response_from_buffer(
          buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .file(var file, let offset, let length):
      // Drop the response's own reference: when the caller kept none, libmicrohttpd takes the
      // descriptor itself instead of a duplicate.
      response.body = .bytes([])
      let fd = file.descriptorForResponse(lastReference: isKnownUniquelyReferenced(&file))
      guard fd >= 0 else { return nil }
      guard length > 0 else {
        System.closeFile(fd)
        return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
      }
      guard let made = MHD_create_response_from_fd_at_offset64(UInt64(length), fd, UInt64(offset)) else {
        System.closeFile(fd)
        return nil
      }
      return made
    }
  }
}

/// The listening socket, made before libmicrohttpd starts so that a failure keeps its errno.
enum ListeningSocket {
  /// The socket and the port bound; throws with what went wrong and what to do.
  static func open(address: String, port: Int) throws(HTTPServerError) -> (socket: Int32, port: Int) {
    let shown = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
    guard (0...65535).contains(port) else {
      throw HTTPServerError("cannot listen on \(shown): \(port) is not a port number; give one from 0 to 65535")
    }
    var socket: Int32 = -1
    var bound: Int32 = 0
    let result = cmicrohttpdshims_listen(address, Int32(port), &socket, &bound)
    switch result {
    case 0:
      return (socket, Int(bound))
    case CMICROHTTPDSHIMS_NOT_AN_ADDRESS:
      throw HTTPServerError(
        "cannot listen on \(shown): \"\(address)\" is not an IPv4 or IPv6 address; give one such as 127.0.0.1 or ::1")
    case EADDRINUSE:
      throw HTTPServerError("cannot listen on \(shown): address already in use; give another --port")
    case EACCES:
      throw HTTPServerError("cannot listen on \(shown): permission denied; give a port above 1023")
    case EADDRNOTAVAIL:
      throw HTTPServerError(
        "cannot listen on \(shown): no interface of this machine has that address; give one of its own addresses")
    default:
      throw HTTPServerError("cannot listen on \(shown): \(System.describe(result)); give another address or port")
    }
  }

}
