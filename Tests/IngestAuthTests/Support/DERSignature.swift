/// Reads the DER `ECDSA-Sig-Value` (`SEQUENCE { INTEGER r, INTEGER s }`) that `openssl dgst -sign` writes for an EC
/// key, and returns JOSE's form: `r ‖ s`, each left-padded to 32 bytes (RFC 7518 §3.4). Written here, independently
/// of the product's conversion the other way, so a test token checks it.
enum DERSignature {
    struct Malformed: Error {}

    static func joseP256(fromDER der: [UInt8]) throws -> [UInt8] {
        var position = 0
        func byte() throws -> UInt8 {
            guard position < der.count else { throw Malformed() }
            defer { position += 1 }
            return der[position]
        }
        func length() throws -> Int {
            let first = try byte()
            guard first & 0x80 != 0 else { return Int(first) }
            var value = 0
            for _ in 0..<Int(first & 0x7F) { value = value << 8 | Int(try byte()) }
            return value
        }
        func integer() throws -> [UInt8] {
            guard try byte() == 0x02 else { throw Malformed() }
            let count = try length()
            guard position + count <= der.count else { throw Malformed() }
            let bytes = der[position..<position + count].drop { $0 == 0 }
            position += count
            guard bytes.count <= 32 else { throw Malformed() }
            return [UInt8](repeating: 0, count: 32 - bytes.count) + bytes
        }
        guard try byte() == 0x30 else { throw Malformed() }
        _ = try length()
        return try integer() + integer()
    }
}
