import Glibc
import Synchronization

/// What libmicrohttpd's callbacks reach (through an `Unmanaged` pointer): the service, the
/// limits, the log, the connection reaper, the worker pool and the count of requests in flight.
///
/// The callbacks run on libmicrohttpd's threads; nothing here blocks except the service itself.
final class ServerCore: Sendable {
  let service: any HTTPService
  let log: RequestLog
  let reaper: ConnectionReaper
  let workers: WorkerPool
  /// The workers for background work, below the others.
  let background: WorkerPool
  let inFlight = Atomic<Int>(0)
  /// Set once the server stops: responses then close their connections.
  let stopping = Atomic<Bool>(false)
  /// Requests with a worker (queued or running), by their context: those ``abandonWork()`` lets
  /// go when the server stops before they are done.
  private let working = Mutex<[ObjectIdentifier: (context: RequestContext, connection: Connection)]>([:])

  init(service: any HTTPService, configuration: HTTPServerConfiguration) {
    self.service = service
    log = RequestLog(
      format: configuration.log, sink: configuration.logSink, secretPrefixes: configuration.logSecretPrefixes)
    reaper = ConnectionReaper(
      requestHeadTimeout: configuration.requestHeadTimeout, connectionTimeout: configuration.connectionTimeout,
      maximumConnections: configuration.maximumConnections)
    workers = WorkerPool(threads: configuration.workers, niceness: configuration.workerNiceness)
    background = WorkerPool(
      threads: configuration.workers, niceness: max(configuration.workerNiceness, configuration.backgroundNiceness))
  }

  /// Jobs queued or running on either pool.
  var pendingWork: Int {
    workers.pending.load(ordering: .relaxed) + background.pending.load(ordering: .relaxed)
  }

  // MARK: - Connections

  func connectionStarted(_ connection: Connection) -> ConnectionRecord {
    reaper.connectionStarted(socket: connection.socket, remoteAddress: connection.clientAddress)
  }

  func connectionClosed(_ record: ConnectionRecord) {
    reaper.connectionClosed(record)
  }

  // MARK: - Requests

  /// The request line has been read (libmicrohttpd's URI callback).
  func requestBegan(_ connection: Connection, target: String) -> RequestContext {
    let record = connection.socketContext.map { Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue() }
    if let record { reaper.requestLineArrived(record) }
    return RequestContext(target: target, record: record, started: System.monotonicNanoseconds())
  }

  /// libmicrohttpd's access handler: called once the head is in, once for each piece of the
  /// body, once when the request is complete, and again after a resume. False closes the
  /// connection.
  func handle(
    _ connection: Connection, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
    upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> Bool {
    guard let raw = requestContext.pointee else { return false }
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
    switch context.phase {
    case .awaitingHead:
      return begin(
        context, connection: connection, method: method.map { String(cString: $0) } ?? "",
        version: version.map { String(cString: $0) } ?? "", buffer: RequestHeadBuffer(method: method, version: version))
    case .answerNext:
      // A body after all (framing the head did not show): it is not wanted, so the connection goes.
      guard uploadSize.pointee == 0, let response = context.takePendingResponse() else { return false }
      return answer(context, connection: connection, with: response)
    case .readingBody:
      let size = uploadSize.pointee
      if size > 0 {
        uploadSize.pointee = 0
        guard let intake = context.intake else { return false }
        if let record = context.record { reaper.bodyReceived(record, count: size) }
        if intake.take(UnsafeRawBufferPointer(start: upload, count: size)) { return true }
        // Too much dropped after a refusal: closed without a response, logged with the status meant.
        context.status = intake.failure?.status ?? 0
        return false
      }
      return bodyComplete(context, connection: connection)
    case .working:
      let outcome = context.work.withLock { work -> HTTPResponse? in
        switch work {
        case .finished(let response):
          work = .delivered
          return response
        case .queued, .running, .delivered, .abandoned:
          return nil
        }
      }
      let response =
        outcome
        ?? errorResponse(status: 503, message: "the server is stopping; try again later", head: context.head)
      return answer(context, connection: connection, with: response)
    case .answered:
      return true
    }
  }

  /// The head is in: plan the request.
  private func begin(
    _ context: RequestContext, connection: Connection, method: String, version: String, buffer: RequestHeadBuffer
  ) -> Bool {
    let head = HTTPRequestHead(
      method: method, target: context.target, version: version, headers: connection.requestHeaders(),
      remoteAddress: context.record?.remoteAddress ?? connection.clientAddress)
    context.head = head
    context.method = method
    if let record = context.record { reaper.headArrived(record) }
    inFlight.add(1, ordering: .relaxed)
    context.countedInFlight = true

    let framing = BodyFraming(head.headers)
    if let problem = framing.problem {
      return refuse(context, connection: connection, status: 400, message: problem, closing: true)
    }
    if let problem = RequestHeadCheck.problem(head, connection: connection, buffer: buffer) {
      return refuse(context, connection: connection, status: 400, message: problem, closing: true)
    }
    // HTTP/1.1 requires Host (RFC 9112 section 3.2); the checks of where a write comes from
    // rely on it.
    if version == "HTTP/1.1" && head.headers["Host"] == nil {
      return refuse(context, connection: connection, status: 400, message: "an HTTP/1.1 request needs a Host field")
    }
    switch service.plan(for: head) {
    case .respond(let response):
      // With a body, answering now leaves the body unread and closes the connection.
      if framing.hasBody { return answer(context, connection: connection, with: response) }
      context.pendingResponse = response
      context.phase = .answerNext
      return true
    case .read(let limit, let onWorker, let planned, let background):
      if framing.hasBody {
        if let length = framing.contentLength, length > limit.maximumBytes {
          return refuse(
            context, connection: connection, status: 413,
            message: "request body of \(length) bytes is over the limit of \(limit.maximumBytes) bytes")
        }
        if limit.maximumBytes <= 0 {
          return refuse(context, connection: connection, status: 413, message: "this request takes no body")
        }
        if framing.chunked && limit.pace.requiresLength {
          return refuse(
            context, connection: connection, status: 411,
            message: "this request's body must announce its length (Content-Length); a chunked body is not taken here",
            closing: true)
        }
        if let record = context.record { reaper.bodyStarted(record, pace: limit.pace) }
      }
      var reader: MultipartReader?
      if let multipart = limit.multipart, let contentType = head.headers["Content-Type"],
        Self.isFormData(contentType)
      {
        guard let boundary = MultipartReader.boundary(contentType: contentType) else {
          return refuse(
            context, connection: connection, status: 400,
            message: "multipart body: its Content-Type has no usable boundary")
        }
        reader = MultipartReader(boundary: boundary, limit: multipart)
      }
      context.intake = BodyIntake(limit: limit, reader: reader, expected: framing.contentLength)
      context.onWorker = onWorker
      context.inBackground = background
      context.planned = planned
      context.phase = .readingBody
      return true
    }
  }

  /// Whether a Content-Type names multipart/form-data, whatever its parameters.
  private static func isFormData(_ contentType: String) -> Bool {
    let end = contentType.firstIndex(of: ";") ?? contentType.endIndex
    return ASCII.trimmed(contentType[..<end]).lowercased() == "multipart/form-data"
  }

  /// The request is complete: answer it here or hand it to a worker.
  private func bodyComplete(_ context: RequestContext, connection: Connection) -> Bool {
    guard let head = context.head, let intake = context.intake else { return false }
    context.intake = nil
    if let record = context.record { reaper.bodyFinished(record) }
    let request: HTTPRequest
    switch intake.finish() {
    case .success(let whole):
      request = HTTPRequest(head: head, body: whole.body, parts: whole.parts, planned: context.planned)
      context.uploads = whole.parts.compactMap(\.file)
    case .failure(let failure):
      intake.discard()
      if let oversized = failure.oversized {
        return answer(
          context, connection: connection,
          with: service.oversizedPartResponse(oversized, message: failure.message, head: head))
      }
      return refuse(context, connection: connection, status: failure.status, message: failure.message)
    }
    guard context.onWorker else {
      return answer(context, connection: connection, with: service.respond(to: request))
    }
    context.phase = .working
    // Suspended before the job is queued, so that the worker's resume always follows it.
    connection.suspend()
    working.withLock { $0[ObjectIdentifier(context)] = (context, connection) }
    let service = self.service
    (context.inBackground ? background : workers).submit { [self] in
      let go = context.work.withLock { work -> Bool in
        guard case .queued = work else { return false }
        work = .running
        return true
      }
      guard go else { return }
      let response = service.respond(to: request)
      context.work.withLock { work in
        guard case .running = work else { return }
        work = .finished(response)
        connection.resume()
      }
      _ = working.withLock { $0.removeValue(forKey: ObjectIdentifier(context)) }
    }
    return true
  }

  /// Lets go of every request still with a worker: each is resumed and answered 503. Returns
  /// how many. Called when the grace of a stop has run out, before libmicrohttpd stops (which
  /// it must not do with a connection suspended).
  func abandonWork() -> Int {
    let all = working.withLock { working in
      defer { working.removeAll() }
      return Array(working.values)
    }
    var count = 0
    for (context, connection) in all {
      context.work.withLock { work in
        switch work {
        case .queued, .running:
          work = .abandoned
          connection.resume()
          count += 1
        case .finished, .delivered, .abandoned:
          break
        }
      }
    }
    return count
  }

  /// Answers with the service's own wording of a problem found here.
  private func refuse(
    _ context: RequestContext, connection: Connection, status: Int, message: String, closing: Bool = false
  ) -> Bool {
    var response = errorResponse(status: status, message: message, head: context.head)
    if closing { response.headers.set("Connection", "close") }
    return answer(context, connection: connection, with: response)
  }

  private func errorResponse(status: Int, message: String, head: HTTPRequestHead?) -> HTTPResponse {
    service.errorResponse(status: status, message: message, head: head)
  }

  /// Queues `response`; one libmicrohttpd cannot send (a status out of 100…999, a file range
  /// outside the file) becomes a 500.
  private func answer(_ context: RequestContext, connection: Connection, with response: consuming HTTPResponse) -> Bool
  {
    var response = response
    if let problem = Self.problem(of: response) {
      response = errorResponse(status: 500, message: problem, head: context.head)
      if Self.problem(of: response) != nil { response = HTTPResponse(status: 500) }
    }
    // Here, where every answer passes, rather than in each place that makes one.
    service.prepareForSending(&response, head: context.head)
    context.phase = .answered
    context.status = response.status
    let bodyless = context.method == "HEAD" || response.status < 200 || response.status == 204 || response.status == 304
    context.bytes = bodyless ? 0 : response.bodyLength
    context.logNote = response.logNote
    return connection.queue(response, closing: stopping.load(ordering: .relaxed))
  }

  /// Why libmicrohttpd cannot send `response`, or nil.
  private static func problem(of response: HTTPResponse) -> String? {
    guard (100...999).contains(response.status) else {
      return "the service answered with status \(response.status)"
    }
    if case .file(let file, let offset, let length) = response.body,
      offset < 0 || length < 0 || offset > file.size - length
    {
      return "the service answered with \(length) bytes from byte \(offset) of a file of \(file.size) bytes"
    }
    return nil
  }

  /// libmicrohttpd's completion callback: the request is over, sent whole (`cleanly`) or not.
  func completed(_ context: RequestContext, connection: Connection, cleanly: Bool) {
    if context.countedInFlight {
      inFlight.subtract(1, ordering: .relaxed)
      context.countedInFlight = false
    }
    context.intake?.discard()
    context.intake = nil
    for upload in context.uploads { upload.remove() }
    context.uploads = []
    if cleanly, let record = context.record { reaper.requestFinished(record) }
    // A request the reaper cut off is logged with why: 408 too slow, 503 cut off to make room.
    let cut = cleanly ? 0 : context.record?.cutStatus ?? 0
    let status = cut != 0 ? cut : context.status != 0 ? context.status : connection.queuedStatus
    log.write(
      RequestLog.Entry(
        remote: context.record?.remoteAddress ?? connection.clientAddress, method: context.method,
        target: context.target, status: status, bytes: context.status != 0 ? context.bytes : 0,
        nanoseconds: System.monotonicNanoseconds() - context.started, aborted: !cleanly, note: context.logNote))
  }
}
