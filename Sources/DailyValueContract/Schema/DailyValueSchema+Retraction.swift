// The retraction event in the published schema (docs/LIFECYCLE.md): `#/$defs/retraction`.

extension DailyValueSchema {
    /// A retraction: `schema`, `patient`, `metric` and `day` as for a value (the shared properties), an explicit
    /// version and a reason; the decoder ignores every other member, so the schema leaves them open.
    var retractionRules: SchemaNode {
        [
            "description": """
            A retraction of the day (kind retraction, docs/LIFECYCLE.md): the day is withdrawn until a higher \
            version arrives; an equal or lower version never brings it back. Members other than these are ignored.
            """,
            "required": ["version", "reason"],
            "properties": [
                "version": [
                    "description": "Competes with the day's values under the same version guard; required.",
                    "type": "integer", "minimum": 0, "maximum": .integer(Int64.max),
                ],
                "reason": plainText(
                    type: "string",
                    """
                    Why the day is withdrawn, in words: not blank, no control characters, at most \
                    \(policy.maxSourceFieldBytes) UTF-8 bytes (the schema bounds characters; the byte limit is the \
                    decoder's).
                    """),
            ],
        ]
    }
}
