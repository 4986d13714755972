import CLibPQ

/// A statement's parameters in libpq's text form, typed so the server parses each as its
/// column's type. All values sit in one buffer: a batch of 500 calls is 6,500 parameters, one
/// allocation rather than one per value.
struct PostgresParameters {
    /// PostgreSQL's type oids (pg_type): what each text value is read as.
    private enum TypeOid {
        static let bool: Oid = 16
        static let int8: Oid = 20
        static let text: Oid = 25
    }

    private var types: [Oid] = []
    private var bytes: [CChar] = []
    /// Where each value starts in `bytes`; nil for SQL NULL.
    private var starts: [Int?] = []

    init() {}

    var count: Int { types.count }

    mutating func add(_ value: String?) {
        append(value, type: TypeOid.text)
    }

    mutating func add(_ value: Int64?) {
        append(value.map { String($0) }, type: TypeOid.int8)
    }

    mutating func add(_ value: Bool) {
        append(value ? "t" : "f", type: TypeOid.bool)
    }

    private mutating func append(_ text: String?, type: Oid) {
        types.append(type)
        guard let text else {
            starts.append(nil)
            return
        }
        starts.append(bytes.count)
        // A NUL inside the text would end the C string there; libpq's text form cannot carry one.
        bytes.append(contentsOf: text.utf8.lazy.map { CChar(bitPattern: $0) })
        bytes.append(0)
    }

    /// `body` gets the count, the types and the values as libpq's `PQexecParams` takes them.
    func withArrays<R>(_ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let values: [UnsafePointer<CChar>?] = starts.map { start in start.map { buffer.baseAddress! + $0 } }
            return types.withUnsafeBufferPointer { types in
                values.withUnsafeBufferPointer { values in
                    body(Int32(count), types.baseAddress, values.baseAddress)
                }
            }
        }
    }
}
