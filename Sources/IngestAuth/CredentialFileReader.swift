#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a whole credential file together with the stamp of the very file read (`fstat` on the open descriptor, so
/// a replacement between the stat and the read cannot pair one file's stamp with another's bytes).
enum CredentialFileReader {
    /// Credential files are small; anything larger is a wrong path (a log, a database), refused before reading.
    static let maximumBytes = 4 << 20

    /// - Throws: ``CredentialFileError`` (`unreadable`) naming the path and the system's reason.
    static func contents(of path: String) throws(CredentialFileError) -> (bytes: [UInt8], stamp: FileStamp) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, "cannot be opened") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure(path, "cannot be stat'ed") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CredentialFileError(.unreadable, path: path, "is not a regular file")
        }
        guard info.st_size <= maximumBytes else {
            throw CredentialFileError(.unreadable, path: path, "is larger than \(maximumBytes >> 20) MiB")
        }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(path, "cannot be read") }
            guard count > 0 else { break }
            bytes += chunk[..<count]
            guard bytes.count <= maximumBytes else {
                throw CredentialFileError(.unreadable, path: path, "is larger than \(maximumBytes >> 20) MiB")
            }
        }
        return (bytes, FileStamp(info))
    }

    private static func failure(_ path: String, _ what: String) -> CredentialFileError {
        CredentialFileError(.unreadable, path: path, "\(what): \(String(cString: strerror(errno)))")
    }
}
