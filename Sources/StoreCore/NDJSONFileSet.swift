import Essentials
import Hashing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Resources written as NDJSON files of at most `maxFileBytes` each (`Observation.000001.ndjson`, …), one resource
/// a line; a resource longer than the limit gets a file of its own.
///
/// A file is written as `NAME.partial` and renamed when it is complete, so a directory an export was killed in holds
/// no complete-looking file that is not.
package final class NDJSONFileSet {
    private let directory: URL
    private let resourceType: String
    private let maxFileBytes: Int
    private var current: OpenFile?
    private var buffer: [UInt8] = []
    private(set) package var files: [ExportedFile] = []

    private struct OpenFile {
        let name: String
        let handle: OutputFile
        let digest = SHA256.Stream()
        var count = 0
        var bytes = 0
    }

    /// Files in `directory` (which must exist) for resources of `resourceType`.
    package init(directory: URL, resourceType: String, maxFileBytes: Int) {
        self.directory = directory
        self.resourceType = resourceType
        self.maxFileBytes = max(1, maxFileBytes)
    }

    /// The resources written so far, in all files.
    package var resourceCount: Int { files.reduce(0) { $0 + $1.count } + (current?.count ?? 0) }
    /// The bytes written so far, in all files.
    package var byteCount: Int { files.reduce(0) { $0 + $1.bytes } + (current?.bytes ?? 0) }

    /// Appends `resource` (compact JSON, no line break) as a line.
    /// - Throws: ``ExportError`` when a file cannot be written, or the resource holds a line break.
    package func append(_ resource: String) throws {
        var line = Array(resource.utf8)
        guard !line.contains(0x0A), !line.contains(0x0D) else {
            throw ExportError("a resource holds a line break and cannot be one NDJSON line")
        }
        line.append(0x0A)
        if let open = current, open.bytes > 0, open.bytes + line.count > maxFileBytes { try closeCurrent() }
        if current == nil { try openNext() }
        buffer += line
        current!.count += 1
        current!.bytes += line.count
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Completes the last file; returns every file written.
    package func finish() throws -> [ExportedFile] {
        try closeCurrent()
        return files
    }

    private func openNext() throws {
        let number = String(files.count + 1)
        let name = "\(resourceType).\(String(repeating: "0", count: max(0, 6 - number.count)))\(number).ndjson"
        let partial = directory.appendingPathComponent(name + ".partial")
        do {
            current = OpenFile(name: name, handle: try OutputFile(path: partial.path))
        } catch {
            throw ExportError("cannot open \(partial.path): \(error)")
        }
    }

    private func flush() throws {
        guard let open = current, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { open.digest.update($0) }
        do {
            try open.handle.write(buffer)
        } catch {
            throw ExportError("cannot write \(open.name): \(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func closeCurrent() throws {
        guard let open = current else { return }
        try flush()
        let partial = directory.appendingPathComponent(open.name + ".partial")
        do {
            try open.handle.synchronize()
            try open.handle.close()
            try FileManager.default.moveItem(at: partial, to: directory.appendingPathComponent(open.name))
        } catch {
            throw ExportError("cannot complete \(open.name): \(error)")
        }
        files.append(
            ExportedFile(
                type: resourceType, url: open.name, count: open.count, bytes: open.bytes,
                sha256: open.digest.finishHex()))
        current = nil
    }
}

/// Why an export could not be written or a manifest read: a message naming the file, never a resource's content.
package struct ExportError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
