import SluiceVocabulary

/// Random handles, ICE ufrags and passwords, from the system generator (letters and digits,
/// so they are valid ICE characters and safe in JSON and URLs).
enum RandomToken {
    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")

    static func make(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }
}

extension RandomToken {
    /// A stream handle: its kind (`pub`, `play`, `precall`), then 16 random characters.
    static func handle(prefix: String) -> StreamHandle {
        prefix + "-" + make(length: 16)
    }
}
