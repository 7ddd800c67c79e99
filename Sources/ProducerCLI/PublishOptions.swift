import Producer

/// `producer publish` options, parsed by hand.
struct PublishOptions {
    var files: [String] = []
    var skipInvalid = false
    var allowInvalid = false
    var raw = false
    var batchSize = 50_000
    var connection = ConnectionOptions()
    var help = false

    static let help = """
        Usage: producer publish [options] [FILE…]

        Validates DailyValue events (JSON lines, or one JSON array per file; `-` or no FILE = stdin) with the
        workers' own decoder, then publishes the original bytes, keyed by patient, and waits for every delivery
        report. Every invalid event is reported as `file:line: reason`.

        Options:
          --skip-invalid            send the valid events even if some are invalid (default: if any event is
                                    invalid, nothing is sent). Invalid events still make the exit status 1.
          --allow-invalid           like --skip-invalid, but invalid events alone do not fail the run
          --raw                     send every record as is, without validation (to put poison messages on a
                                    test topic); the key is the `patient` field when one can be read
          --batch-size N            records per producer batch (default 50000); the next batch is validated
                                    while the previous one is in flight

        \(ConnectionOptions.help)

        Progress goes to stderr every few seconds, and a final summary: read, sent, acknowledged, rejected,
        failed, elapsed time and rate.
        Exit status: 0 when every event read was acknowledged (with --allow-invalid: every valid one);
        1 when any event was invalid or not delivered; 2 for usage or configuration errors.
        """

    init(arguments: [String]) throws(ProducerConfigurationError) {
        var arguments = CommandLineArguments(arguments)
        while let element = arguments.next() {
            switch element {
            case .positional(let file): files.append(file)
            case .option(let option):
                if try connection.parse(option, from: &arguments) { continue }
                try parse(option, from: &arguments)
            }
        }
        if files.isEmpty { files = ["-"] }
        if allowInvalid { skipInvalid = true }
        if raw, skipInvalid {
            throw ProducerConfigurationError(option: "--raw", rule: "cannot be combined with --skip-invalid")
        }
    }

    private mutating func parse(_ option: String, from arguments: inout CommandLineArguments)
        throws(ProducerConfigurationError)
    {
        switch option {
        case "--help", "-h": help = true
        case "--skip-invalid":
            try arguments.expectNoValue(for: option)
            skipInvalid = true
        case "--allow-invalid":
            try arguments.expectNoValue(for: option)
            allowInvalid = true
        case "--raw":
            try arguments.expectNoValue(for: option)
            raw = true
        case "--batch-size": batchSize = try arguments.integer(for: option, in: 1...1_000_000)
        default: throw ProducerConfigurationError(option: option, rule: "unknown option (see --help)")
        }
    }
}
