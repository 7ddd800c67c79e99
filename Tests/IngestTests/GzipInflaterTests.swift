import Foundation
import HTTPServer
import TestSupport
import Testing

/// The gzip wrapper against bodies made by the real `gzip` tool: round trips, concatenated members, the limit (a
/// bomb stops there), and corrupt, truncated or non-gzip input refused as malformed.
@Suite struct GzipInflaterTests {
    /// `gzip -c` of `bytes`.
    static func gzip(_ bytes: [UInt8], level: Int = 6) async throws -> [UInt8] {
        let directory = try TestEnvironment.temporaryDirectory("dvp-gzip")
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        try Data(bytes).write(to: input)
        let result = try await runCommand("/bin/sh", ["-c", "gzip -\(level) -c '\(input.path)'"])
        #expect(result.status == 0)
        return Array(result.stdoutData)
    }

    @Test func roundTripAndMembers() async throws {
        let text = Array(String(repeating: "{\"schema\":1,\"value\":71.4}\n", count: 5000).utf8)
        let compressed = try await Self.gzip(text)
        #expect(try GzipInflater.inflate(compressed, limit: text.count) == text, "exactly at the limit")
        let second = try await Self.gzip(Array("tail\n".utf8))
        #expect(try GzipInflater.inflate(compressed + second, limit: 1 << 20) == text + Array("tail\n".utf8))
        #expect(try GzipInflater.inflate(try await Self.gzip([]), limit: 10) == [])
    }

    @Test func bombStopsAtTheLimit() async throws {
        let bomb = try await Self.gzip([UInt8](repeating: 0x20, count: 32 << 20), level: 9)
        #expect(bomb.count < 64 * 1024)
        #expect { _ = try GzipInflater.inflate(bomb, limit: 1 << 20) } throws: { ($0 as? GzipError)?.code == .tooLarge }
        #expect { _ = try GzipInflater.inflate(bomb, limit: (32 << 20) - 1) } throws: {
            ($0 as? GzipError)?.code == .tooLarge
        }
        #expect(try GzipInflater.inflate(bomb, limit: 32 << 20).count == 32 << 20)
    }

    @Test func malformedInput() async throws {
        let compressed = try await Self.gzip(Array("hello, world\n".utf8))
        var corrupt = compressed
        corrupt[corrupt.count - 6] ^= 0xFF  // the CRC-32
        let cases: [[UInt8]] = [
            [], Array("plain text".utf8), Array(compressed.dropLast(4)), corrupt, compressed + Array("junk".utf8),
        ]
        for input in cases {
            #expect { _ = try GzipInflater.inflate(input, limit: 1 << 20) } throws: {
                ($0 as? GzipError)?.code == .malformed
            }
        }
    }
}
