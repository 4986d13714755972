import SluiceJSON
import SluiceSignaling

/// `GET /api/v1/tables` (docs/protocol.md section 2): the size of every table the server keeps
/// per session, handle, stream, call, recording, pre-call test and link, by owner and name.
/// With nothing connected each is back to its idle size, however many came and went: the leak
/// tests assert exactly that (issue 33), and an operator can see where memory is held. The
/// names follow the code and may change between versions.
final class AdminTables {
    static let path = "/api/v1/tables"

    private let authorization: AdminAuthorization
    private let sizes: () -> [String: Int]

    init(adminToken: String, sizes: @escaping () -> [String: Int]) {
        authorization = AdminAuthorization(token: adminToken)
        self.sizes = sizes
    }

    func register(on router: HTTPRouter) {
        router.add(nil, Self.path) { [self] request in
            if let refusal = authorization.refusal(for: request) { return refusal }
            guard request.path == Self.path || request.path == Self.path + "/" else { return .notFound }
            guard AdminAPI.isRead(request) else { return AdminAPI.methodNotAllowed("GET") }
            let tables = sizes().sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }
            return .json(["tables": .object(JSONObject(tables))])
        }
    }
}
