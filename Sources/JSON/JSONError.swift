/// Why a JSON text was refused: it breaks the grammar or a limit of the scanner (nesting, encoding, trailing data),
/// or an object repeats a member. The message says where (the byte offset) and which rule.
package struct JSONError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Not JSON, or JSON beyond the scanner's limits.
        case syntax
        /// An object names one member twice (refused, not "last one wins").
        case duplicateMember
    }

    package var kind: Kind
    /// The repeated member's name (`duplicateMember`); empty for `syntax`.
    package var member: String
    package var message: String

    package init(_ kind: Kind, member: String = "", _ message: String) {
        self.kind = kind
        self.member = member
        self.message = message
    }

    package var description: String { member.isEmpty ? message : "\(member): \(message)" }
}
