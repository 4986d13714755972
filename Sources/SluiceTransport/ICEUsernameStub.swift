// TEMPORARY until the STUN parser lands.
enum ICEUsername { static func localUfrag(inBindingRequest: UnsafeRawBufferPointer) -> String? { nil } }
