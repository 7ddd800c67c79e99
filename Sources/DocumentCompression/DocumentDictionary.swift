import Essentials

/// A zstd dictionary the stored documents are compressed with. Its id is in every frame, so a row names the
/// dictionary that reads it: a new dictionary gets a new id and the old ones stay in ``known`` for the rows they wrote.
public struct DocumentDictionary: Sendable, Hashable {
    /// The dictionary id of zstd's frame header (the dictionary's own header carries it too).
    public let id: UInt32
    public let bytes: [UInt8]

    /// - Precondition: `bytes` is a zstd dictionary (magic `0xEC30A437`), whose id is read from its header.
    public init(bytes: [UInt8]) {
        precondition(bytes.count > 8 && bytes[0..<4].elementsEqual([0x37, 0xA4, 0x30, 0xEC]), "not a zstd dictionary")
        self.bytes = bytes
        self.id = (4..<8).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) }
    }

    /// The dictionary new documents are compressed with: trained on the mapper's Observations of every built-in
    /// metric (`scripts/train-document-dictionary.sh`).
    public static let current: DocumentDictionary = {
        let dictionary = DocumentDictionary(bytes: Base64URL.decode(builtinText)!)
        precondition(dictionary.id == builtinID, "the built-in dictionary names another id")
        return dictionary
    }()

    /// Every dictionary a stored document may name, newest first.
    public static let known: [DocumentDictionary] = [current]
}
