// The two lock-free queues of a handler (seed 001, Sec. 3.1): the queue of queues, which many
// clients fill and one handler empties (multi-producer, single-consumer), and each private queue,
// which one client fills and its handler empties (single-producer, single-consumer).
//
// Both are linked lists with a stub node, after D. Vyukov's designs. Each node in a list holds one
// manual reference (+1), taken at push and given back when the consumer moves past it. A producer
// only ever writes the `next` link of the node it replaced as the tail, and the consumer moves past
// a node only after reading that link, so a node is never freed while a producer still writes it.
// In the MPSC queue a producer swaps itself in as the tail and links afterwards; between the two
// the consumer sees an empty queue for a moment. Callers cope: a handler that finds nothing parks,
// and the producer, which always wakes the handler after its link, reschedules it (Handler.wake).

import Synchronization

@usableFromInline
final class Node<Value>: @unchecked Sendable {
    // Written by the producer before the node is linked and read by the consumer after it loaded
    // the link: the link's release/acquire orders the two. nil only in the stub.
    var value: Value?
    let next = Atomic<UnsafeRawPointer?>(nil)

    init(_ value: Value?) { self.value = value }

    static func retained(_ value: Value?) -> UnsafeRawPointer {
        UnsafeRawPointer(Unmanaged.passRetained(Node(value)).toOpaque())
    }

    static func at(_ raw: UnsafeRawPointer) -> Node { Unmanaged<Node>.fromOpaque(raw).takeUnretainedValue() }

    static func release(_ raw: UnsafeRawPointer) { Unmanaged<Node>.fromOpaque(raw).release() }
}

/// The consumer's end, shared by both queues: one consumer at a time.
struct ConsumerEnd<Value> {
    private(set) var head: UnsafeRawPointer   // the stub: the last node consumed

    init(stub: UnsafeRawPointer) { head = stub }

    mutating func pop() -> Value? {
        guard let next = Node<Value>.at(head).next.load(ordering: .acquiring) else { return nil }
        let node = Node<Value>.at(next)
        let value = node.value
        node.value = nil                     // it becomes the stub
        Node<Value>.release(head)
        head = next
        return value
    }

    var isEmpty: Bool { Node<Value>.at(head).next.load(ordering: .acquiring) == nil }

    mutating func drain() {
        while pop() != nil {}
        Node<Value>.release(head)
    }
}

/// Multi-producer, single-consumer: `push` from any thread, `pop` from the one consumer.
public final class MPSCQueue<Value>: @unchecked Sendable {
    private var consumer: ConsumerEnd<Value>
    private let tail: Atomic<UnsafeRawPointer>

    public init() {
        let stub = Node<Value>.retained(nil)
        consumer = ConsumerEnd(stub: stub)
        tail = Atomic(stub)
    }

    deinit { consumer.drain() }

    public func push(_ value: Value) {
        let node = Node<Value>.retained(value)
        let previous = tail.exchange(node, ordering: .acquiringAndReleasing)
        Node<Value>.at(previous).next.store(node, ordering: .releasing)
    }

    /// The oldest value; nil when empty or while a push is between its swap and its link.
    public func pop() -> Value? { consumer.pop() }

    public var isEmpty: Bool { consumer.isEmpty }
}

/// Single-producer, single-consumer: `push` from the one producer, `pop` from the one consumer.
/// No read-modify-write on either side: the producer owns the tail outright.
public final class SPSCQueue<Value>: @unchecked Sendable {
    private var consumer: ConsumerEnd<Value>
    private var tail: UnsafeRawPointer        // the producer's end

    public init() {
        let stub = Node<Value>.retained(nil)
        consumer = ConsumerEnd(stub: stub)
        tail = stub
    }

    deinit { consumer.drain() }

    public func push(_ value: Value) {
        let node = Node<Value>.retained(value)
        let previous = tail
        // The tail moves before the link publishes the node: once published, the value may make
        // the consumer resume a producer elsewhere (a sync), which pushes again at once.
        tail = node
        Node<Value>.at(previous).next.store(node, ordering: .releasing)
    }

    public func pop() -> Value? { consumer.pop() }

    public var isEmpty: Bool { consumer.isEmpty }
}
