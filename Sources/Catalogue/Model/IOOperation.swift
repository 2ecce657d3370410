/// What a file operation that failed was doing, for ``CatalogueError/io(operation:path:code:)``.
public enum IOOperation: Sendable, Equatable, CustomStringConvertible {
  case read
  case write
  case create
  case sync
  case syncFolder
  case renameIntoPlace
  case createFolder
  case remove
  case removeFolder
  case list
  case lookAt
  case open
  case openLock
  case lock
  /// Checking, inside a transaction, that a file written for an import is still in place.
  case keep
  case exportTo
  /// Moving the file at the given path (relative to the library) to the failing path.
  case move(from: String)
  /// Committing the records (a fault a test makes).
  case commit

  /// The verb, as "cannot VERB PATH: why" reads.
  public var description: String {
    switch self {
    case .read: return "read"
    case .write: return "write"
    case .create: return "create"
    case .sync: return "sync"
    case .syncFolder: return "sync folder"
    case .renameIntoPlace: return "rename into place"
    case .createFolder: return "create folder"
    case .remove: return "remove"
    case .removeFolder: return "remove folder"
    case .list: return "list"
    case .lookAt: return "look at"
    case .open: return "open"
    case .openLock: return "open the lock"
    case .lock: return "lock"
    case .keep: return "keep"
    case .exportTo: return "export to"
    case .move(let from): return "move \(from) to"
    case .commit: return "commit"
    }
  }

  /// Whether the failure was in storing something (a full disk, say) rather than in reading:
  /// such a failure stops a repair or a rebuild, where a picture that cannot be read is only
  /// that picture's problem.
  public var isStoring: Bool {
    switch self {
    case .read, .list, .lookAt, .open: return false
    default: return true
    }
  }
}
