import COpenSSL

/// One cipher's implementation in its OpenSSL provider, called through the provider's own
/// dispatch table (provider-cipher(7), `OSSL_PROVIDER_query_operation`) rather than through
/// EVP.
///
/// Why: on OpenSSL 3.0 (Debian 12), `EVP_CipherInit_ex` with only an IV asks the provider for
/// the IV length through a parameter list on every call, and `EVP_CIPHER_CTX_ctrl` for a GCM
/// tag builds another; the provider finds each known name in the list by `strcmp`. Under
/// callgrind that was about 1,300 of the 7,400 user-space instructions per forwarded packet
/// (`EVP_CIPHER_CTX_get_iv_length` 628 per call, `EVP_CIPHER_CTX_ctrl` 688). EVP itself makes
/// the same provider calls with the same arguments (`einit`/`dinit` with no key and the IV,
/// `update`, `final`, the tag as an `OSSL_PARAM`), so the provider does exactly the work it
/// did before; only the asking in between is gone. The table comes from the provider of the
/// cipher `EVP_CIPHER_fetch` chose, so a FIPS or other provider is used the same way.
// @unchecked: C function pointers from the provider's dispatch table, immutable; each session calls them on its own context.
struct OpenSSLProviderCipher: @unchecked Sendable {
    typealias NewContext = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?
    typealias FreeContext = @convention(c) (UnsafeMutableRawPointer?) -> Void
    typealias Initialize = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<UInt8>?,
                                           Int, UnsafePointer<OSSL_PARAM>?) -> Int32
    typealias Update = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?,
                                       Int, UnsafePointer<UInt8>?, Int) -> Int32
    typealias Final = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<Int>?,
                                      Int) -> Int32
    typealias GetParameters = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<OSSL_PARAM>?) -> Int32
    typealias SetParameters = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<OSSL_PARAM>?) -> Int32

    /// The provider's context, which `newContext` takes.
    let providerContext: UnsafeMutableRawPointer?
    let newContext: NewContext
    let freeContext: FreeContext
    let encryptInit: Initialize
    let decryptInit: Initialize
    let update: Update
    let final: Final
    let getParameters: GetParameters
    let setParameters: SetParameters

    /// The implementation of `cipher` (fetched) in its provider; nil when the provider does
    /// not list it with every function above.
    init?(cipher: OpaquePointer) {
        guard let provider = EVP_CIPHER_get0_provider(cipher), let name = EVP_CIPHER_get0_name(cipher) else { return nil }
        let wanted = String(cString: name).uppercased()
        var noCache: Int32 = 0
        guard let algorithms = OSSL_PROVIDER_query_operation(provider, OSSL_OP_CIPHER, &noCache) else { return nil }
        defer { OSSL_PROVIDER_unquery_operation(provider, OSSL_OP_CIPHER, algorithms) }
        var table: UnsafePointer<OSSL_DISPATCH>?
        var index = 0
        while let names = algorithms[index].algorithm_names {
            if String(cString: names).uppercased().split(separator: ":").contains(Substring(wanted)) {
                table = algorithms[index].implementation
                break
            }
            index += 1
        }
        guard let table else { return nil }
        var functions: [Int32: @convention(c) () -> Void] = [:]
        var entry = 0
        while table[entry].function_id != 0 {
            if let function = table[entry].function { functions[table[entry].function_id] = function }
            entry += 1
        }
        func function<T>(_ id: Int32, as type: T.Type) -> T? {
            functions[id].map { unsafeBitCast($0, to: type) }
        }
        guard let newContext = function(OSSL_FUNC_CIPHER_NEWCTX, as: NewContext.self),
              let freeContext = function(OSSL_FUNC_CIPHER_FREECTX, as: FreeContext.self),
              let encryptInit = function(OSSL_FUNC_CIPHER_ENCRYPT_INIT, as: Initialize.self),
              let decryptInit = function(OSSL_FUNC_CIPHER_DECRYPT_INIT, as: Initialize.self),
              let update = function(OSSL_FUNC_CIPHER_UPDATE, as: Update.self),
              let final = function(OSSL_FUNC_CIPHER_FINAL, as: Final.self),
              let getParameters = function(OSSL_FUNC_CIPHER_GET_CTX_PARAMS, as: GetParameters.self),
              let setParameters = function(OSSL_FUNC_CIPHER_SET_CTX_PARAMS, as: SetParameters.self)
        else { return nil }
        providerContext = OSSL_PROVIDER_get0_provider_ctx(provider)
        self.newContext = newContext
        self.freeContext = freeContext
        self.encryptInit = encryptInit
        self.decryptInit = decryptInit
        self.update = update
        self.final = final
        self.getParameters = getParameters
        self.setParameters = setParameters
    }

    /// The parameter name of a GCM tag, as a C string that lives as long as the process.
    static let tagKey: UnsafePointer<CChar> = {
        let name = OSSL_CIPHER_PARAM_AEAD_TAG
        let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: name.utf8.count + 1)
        name.withCString { pointer.initialize(from: $0, count: name.utf8.count + 1) }
        return UnsafePointer(pointer)
    }()
}
