extension String {
    /// Decodes a NUL-terminated C buffer (e.g. librdkafka's `errstr`) as UTF-8.
    init(cBuffer buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
