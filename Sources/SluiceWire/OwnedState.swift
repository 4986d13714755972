/// A class's per-packet state in memory the class owns, reached as `state.member` (or
/// `state.pointee`, the whole).
///
/// Why not stored `var`s: a stored property of a class that a call mutates is accessed under a
/// dynamic exclusivity check (swift_beginAccess, about 70 instructions) each time, since the
/// optimizer cannot prove that no other access overlaps it; memory behind a pointer held in a
/// `let` is not checked (docs/design.md, hot-path rule 8). Keeping the fields in one struct
/// also keeps them on as few cache lines as they fit.
///
/// The class holds it as a `let` and frees it with itself (noncopyable: one owner, one
/// deallocation). Members are reached by key path through addressors, as
/// `UnsafeMutablePointer.pointee` is: once inlined, the optimizer folds each literal key path
/// into a fixed offset, so a member is a plain load or store (`_read`/`_modify` coroutines over
/// `[keyPath:]` left about one key-path call in three unfolded on the packet path).
/// Confined to the owner's thread, like the owner: nothing here is synchronised.
@frozen @dynamicMemberLookup
public struct OwnedState<Value>: ~Copyable {
    @usableFromInline let pointer: UnsafeMutablePointer<Value>

    @inlinable
    public init(_ value: Value) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: value)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    @inlinable
    public subscript<Member>(dynamicMember path: WritableKeyPath<Value, Member>) -> Member {
        // `pointer(to:)` is nil only for a computed member; every member reached here is stored.
        @inline(__always) unsafeAddress { UnsafePointer(pointer).pointer(to: path)! }
        @inline(__always) nonmutating unsafeMutableAddress { pointer.pointer(to: path)! }
    }

    @inlinable
    public var pointee: Value {
        @inline(__always) unsafeAddress { UnsafePointer(pointer) }
        @inline(__always) nonmutating unsafeMutableAddress { pointer }
    }
}
