/// Another worker that relays a stream: its index and its ingress's key (home router's list).
struct RelayTarget: Equatable {
    let worker: Int
    let key: RelayKey
}
