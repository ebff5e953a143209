import Glibc

/// A folder of a source to look at: alone (the watcher saw a file in it change) or with every
/// folder below it (a whole source, a folder moved in).
public struct ScanFolder: Sendable, Hashable {
    /// Its absolute path.
    public var path: String
    /// Whether the folders below it are looked at too.
    public var recursive: Bool

    /// Creates a folder to scan.
    public init(path: String, recursive: Bool) {
        self.path = path
        self.recursive = recursive
    }
}

/// A regular file a walk found, with what a rescan compares.
struct WalkedFile: Sendable, Hashable {
    var path: String
    var size: Int64
    var mtimeNs: Int64
    var device: UInt64
    var inode: UInt64
    /// Its inode's change time (ns since 1970): anything done to the file, even with its mtime set back.
    var ctimeNs: Int64
}

/// Lists the files below folders with `readdir` and `fstatat`, never following a symbolic link to a
/// folder (a link loop cannot trap it) and never opening anything: what is not a regular file is
/// left out with a reason. Folders whose name starts with a dot (`.thumbnails`, `.Trash-1000`) are
/// not entered, each named with that reason (what is inside them is not listed).
struct FolderWalk {
    /// The regular files found (a symbolic link to a regular file counts, with the target's size and
    /// mtime and the link's path).
    var files: [WalkedFile] = []
    /// Entries left out, by path, with why.
    var skipped: [String: String] = [:]
    /// Of those, the folders not looked into (hidden ones, links to folders): what they hold is not
    /// even counted, so pickerd names them where the person looks at their sources.
    var skippedFolders: Set<String> = []
    /// Folders that could not be read, by path, with why.
    var unreadableFolders: [String: String] = [:]
    /// The folders listed.
    var folders: [String] = []

    /// Walks `folders`.
    /// - Parameter folders: where to look.
    /// - Parameter seen: called now and then with how many files were found so far.
    init(_ folders: [ScanFolder], seen: (Int) -> Void = { _ in }) {
        var visited = Set<[UInt64]>()
        var pending = folders.map { ($0.path, $0.recursive) }
        while let (folder, recursive) = pending.popLast() {
            guard let directory = opendir(folder) else {
                unreadableFolders[folder] = String(cString: strerror(errno))
                continue
            }
            defer { closedir(directory) }
            let fd = dirfd(directory)
            var own = stat()
            if fstat(fd, &own) == 0 {
                // The same folder twice (a bind mount, a folder given twice): once is enough.
                guard visited.insert([UInt64(own.st_dev), UInt64(own.st_ino)]).inserted else { continue }
            }
            self.folders.append(folder)
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                let path = folder == "/" ? "/" + name : folder + "/" + name
                var info = stat()
                guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    skipped[path] = String(cString: strerror(errno))
                    continue
                }
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    if recursive {
                        if name.hasPrefix(".") {
                            skipped[path] = "a hidden folder (its name starts with a dot): not looked into"
                            skippedFolders.insert(path)
                        } else {
                            pending.append((path, true))
                        }
                    }
                case S_IFREG:
                    if name.hasPrefix(".") { continue }  // hidden files: sidecars, editors' scratch
                    files.append(Self.file(path, info))
                    if files.count % 1024 == 0 { seen(files.count) }
                case S_IFLNK:
                    var target = stat()
                    if fstatat(fd, name, &target, 0) != 0 {
                        skipped[path] = errno == ELOOP ? "a symbolic link loop" : "a symbolic link to nothing (\(String(cString: strerror(errno))))"
                    } else if target.st_mode & S_IFMT == S_IFREG {
                        files.append(Self.file(path, target))
                    } else if target.st_mode & S_IFMT == S_IFDIR {
                        skipped[path] = "a symbolic link to a folder: not followed (add that folder as a source)"
                        skippedFolders.insert(path)
                    } else {
                        skipped[path] = "a symbolic link to something that is not a file"
                    }
                default:
                    skipped[path] = "not a regular file"
                }
            }
        }
        seen(files.count)
    }

    private static func file(_ path: String, _ info: stat) -> WalkedFile {
        WalkedFile(path: path, size: Int64(info.st_size),
                   mtimeNs: info.st_mtim.nanoseconds, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                   ctimeNs: info.st_ctim.nanoseconds)
    }
}

extension timespec {
    /// The time in nanoseconds since 1970, as the index records a file's mtime and ctime.
    var nanoseconds: Int64 { Int64(tv_sec) * 1_000_000_000 + Int64(tv_nsec) }
}
