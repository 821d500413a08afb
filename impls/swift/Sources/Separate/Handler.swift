// A handler (SCOOP's processor): it owns one object and runs, one at a time and in order, the calls
// its clients log. Its request queue is a queue of queues (Sec. 2, Fig. 4): a reservation links the
// begin cell of the client's private queue into it; the handler takes blocks in that order and runs
// each one's calls until its END (Fig. 7, the RUN and END rules). Under `none` and `dynamic` there
// is no queue of queues: one queue per handler, which a client locks for its whole block.
//
// A handler is not a thread: a runner (Runner.swift) carries it while it has work. Its state word
// says whether it runs, or where it parked: between blocks (a reservation wakes it) or on one
// private queue in the middle of a block (that queue's client wakes it at whatever it logs next: a
// call, a sync or END). The handler writes the word when it parks; whoever moves it from parked to
// running (a compare-and-swap) owns the handler: a client waking it schedules it, and a client that
// would otherwise wait for it runs the handler's step itself (a wait condition on a handler parked
// between blocks, a sync on one parked on the client's block: the "in place" paths below).
// (Under `none`, `dynamic` and `static` there is no queue of queues: LockedBlocks.swift.)
//
// Wait conditions are evaluated where the state lives: a reservation with a condition is a begin
// cell like any other; the handler tests the condition when it reaches it, and after every block
// that may have changed the object (it ran calls, or a client held it synced: its queries may
// write) it tests the waiting ones in order and hands itself, reserved and synced, to the first that
// holds. One wake-up per change, no failed retries.

import Foundation
import Synchronization

/// What a handler is, whatever the type of the object it owns: the queue of queues, the state word
/// and the loop, none of them generic.
public class HandlerCore: @unchecked Sendable {
    /// Unique in the process: it orders multi-reservations, and keys a client's cache of queues.
    public let id: UInt64
    @usableFromInline let runtime: Runtime
    // The runtime's, borrowed (the runtime outlives its handlers): no reference counted on the
    // paths that suspend a client, schedule the handler or poll. Every handler shares the pool, so a
    // count there would move its line between the threads at each of them.
    private let pool: Unmanaged<Pool>
    @usableFromInline let target: AnyObject
    private static let ids = Atomic<UInt64>(1)

    @usableFromInline static var running: UInt { 0 }
    @usableFromInline static var betweenBlocks: UInt { 1 }
    /// Polls of an empty queue of queues before a handler with nothing else to do parks
    /// (a poll is one load, a few nanoseconds: about 5–10 µs in all).
    static var idlePolls: Int { 2_000 }
    /// Polls of its block's queue before a handler whose client has logged nothing more parks on it.
    static var blockPolls: Int { 200 }
    // The header, with the reference count every client's reference touches, apart from the state.
    @usableFromInline let headerLine = Padding()
    /// Running (or scheduled), parked between blocks, or parked on the private queue whose
    /// identity it holds.
    @usableFromInline let state = Atomic<UInt>(1)

    // Held while a multi-reservation links its begin cells into several queues of queues, so two of
    // them are in the same order everywhere (Sec. 3.3).
    @usableFromInline let reservation = SpinLock()

    // `none`, `dynamic` and `static`: the one queue, which a client locks for its whole block.
    @usableFromInline final private(set) var shared: PrivateQueue?
    /// `none`, `dynamic` and `static`: the block lock and the version of changes, instead of the
    /// queue of queues.
    @usableFromInline final let locked: LockedBlocks?
    /// Blocks lock the one shared queue (`locked` is set).
    @inlinable final var locksBlocks: Bool { locked != nil }

    /// Takes the block lock: at once where it is free, else by suspending until it is granted. (The
    /// pool is read only on the slow path: passed in, it would count a reference on it per block.)
    @inlinable @inline(__always)
    final func lockBlock() async {
        let lock = locked.unsafelyUnwrapped.lock
        if !lock.tryAcquire() { await lock.acquire(on: runtime.pool) }
    }

    // The queue of queues, after D. Vyukov's intrusive multi-producer queue: producers exchange the
    // tail and then link; the handler alone moves the head. Nodes are begin cells, and a stub.
    // (Each side on a cache line of its own, see Padding.)
    @usableFromInline let tailLine = Padding()
    @usableFromInline let qoqTail: Atomic<UnsafeMutableRawPointer>
    @usableFromInline let headLine = Padding()
    private var qoqHead: UnsafeMutableRawPointer
    private let stub: UnsafeMutablePointer<Cell>

    // Only the running handler, or a client that claimed it, touches these. The block's queue is
    // kept alive by the reference its begin holds (or, for `shared`, by the handler): unmanaged,
    // so the loop counts no references per request.
    private var current: Unmanaged<PrivateQueue>?
    /// The current block ran a call, or was synced or granted (its client's queries may write).
    private var mayHaveChanged = false
    private var waiting: [PrivateQueue] = []
    // The handler as a client of other handlers (SCOOP: a processor's calls are its own clients),
    // made at its first act; one act runs at a time, so one identity and its cache serve them all.
    private var asClient: Client?
    private var syncs = 0
    private var grantsInPlace = 0
    private var syncsInPlace = 0

    init(target: AnyObject, runtime: Runtime) {
        id = HandlerCore.ids.wrappingAdd(1, ordering: .relaxed).oldValue
        self.runtime = runtime
        pool = .passUnretained(runtime.pool)
        self.target = target
        locked = runtime.locksBlocks ? LockedBlocks() : nil
        stub = .allocate(capacity: 1)
        stub.initialize(to: Cell(owner: nil))
        qoqHead = UnsafeMutableRawPointer(stub)
        qoqTail = Atomic(UnsafeMutableRawPointer(stub))
        if runtime.locksBlocks {
            // Set once, here, before anyone can see the handler; it waits on that queue for good.
            let queue = PrivateQueue(handler: self, shared: true)
            shared = queue
            current = Unmanaged.passUnretained(queue)
            state.store(queue.identity, ordering: .relaxed)
        }
    }

    deinit {
        stub.deinitialize(count: 1)
        stub.deallocate()
    }

    /// How many syncs and granted wait conditions this handler has served (a reading for tests
    /// and reports, taken when the handler is idle).
    public var syncsServed: Int { syncs }

    /// Of those, the wait conditions granted with no suspension of their clients (`grantInPlace`).
    public var grantsWithoutSuspending: Int { grantsInPlace }

    /// Of those, the syncs its clients served themselves, with no suspension (`syncInPlace`).
    public var syncsWithoutSuspending: Int { syncsInPlace }

    // -- waking -------------------------------------------------------------------------

    /// Schedules the handler if it is parked where `place` says (a queue's identity, or between blocks).
    @inlinable
    final func wake(from place: UInt) {
        if state.load(ordering: .relaxed) == place,
           state.compareExchange(expected: place, desired: HandlerCore.running, ordering: .acquiringAndReleasing).exchanged {
            schedule()
        }
    }

    /// The pool, borrowed for `body`.
    @inline(__always)
    final func withPool<T>(_ body: (Pool) -> T) -> T { pool._withUnsafeGuaranteedRef(body) }

    /// Runs the handler on the pool: next on this thread if it is one of the pool's.
    @usableFromInline
    final func schedule() { withPool { $0.submit(Work(self)) } }

    /// Links a begin cell into the queue of queues; the caller wakes the handler after.
    @inlinable
    final func link(_ cell: UnsafeMutableRawPointer) {
        HandlerCore.cell(cell).pointee.link.store(nil, ordering: .relaxed)
        let previous = qoqTail.exchange(cell, ordering: .sequentiallyConsistent)
        HandlerCore.cell(previous).pointee.link.store(cell, ordering: .releasing)
    }

    /// After a link: the exchange already ordered it before this load (see `parkBetweenBlocks`).
    @inlinable
    final func wakeBetweenBlocks() {
        if state.load(ordering: .sequentiallyConsistent) == HandlerCore.betweenBlocks {
            wake(from: HandlerCore.betweenBlocks)
        }
    }

    /// A block with a wait condition, reserved while the handler is parked between blocks: the
    /// client (once it has suspended) takes the handler over and admits its block itself, with no
    /// link and no run of the handler to get there. False if the handler was busy. (A block linked
    /// meanwhile by another client is served after: single reservations have no order among clients.)
    func claim(for queue: PrivateQueue) -> Bool {
        guard takeOver() else { return false }
        if !admit(queue), !parkBetweenBlocks() { schedule() }   // a block came meanwhile
        return true
    }

    /// A block with a wait condition, before its client suspends: on a handler parked between blocks
    /// whose object meets the condition, the client takes the handler over and grants the block to
    /// itself, and goes on without suspending (the handler then waits on its queue, synced, as after
    /// any grant). False, the handler as it was, where it is busy or the condition does not hold: the
    /// client then suspends and reserves as `reserveWhen` does, and the condition is tested again there.
    @usableFromInline
    func grantInPlace(_ queue: PrivateQueue, _ condition: (AnyObject) -> Bool) -> Bool {
        guard takeOver() else { return false }
        guard condition(target) else {
            if !parkBetweenBlocks(polling: false) { schedule() }   // a block came meanwhile
            return false
        }
        grantsInPlace += 1
        hold(for: queue)
        return true
    }

    /// A sync, before its client suspends (with dynamic sync coalescing: `dynamic`, `all`): where the
    /// handler is parked on the block, the client takes it over, runs on its own thread what the
    /// handler had not taken yet (calls it would wait for anyway; none but where the handler was
    /// just parking) and parks it on the block again: synced, with no round trip. False where the
    /// handler runs elsewhere, or met an act (it goes on in a runner): the client then logs its
    /// sync and suspends.
    @usableFromInline
    func syncInPlace(_ queue: PrivateQueue) -> Bool {
        guard takeOver(parkedOn: queue), catchUp(queue) else { return false }
        syncsInPlace += 1
        hold(for: queue)
        return true
    }

    /// The handler, parked on the block of `queue`'s client, taken over by that client.
    private func takeOver(parkedOn queue: PrivateQueue) -> Bool {
        let identity = queue.identity
        return state.load(ordering: .relaxed) == identity
            && state.compareExchange(expected: identity, desired: HandlerCore.running, ordering: .acquiringAndReleasing).exchanged
    }

    /// Runs what the handler had not taken of the block's queue when it parked on it; false if that
    /// was an act (the handler goes on with it in a runner).
    private func catchUp(_ queue: PrivateQueue) -> Bool {
        while true {
            switch queue.runCalls(on: target, ran: &mayHaveChanged) {
            case .caughtUp:
                return true
            case .act(let act):
                runtime.carry(self, act)
                return false
            case .end:
                // Only under the block lock: the END of the block before the client's (then it
                // only notes a change). Under the queue of queues no END is logged before the sync.
                precondition(locksBlocks, "a block's END before its own sync")
                _ = ended(current.unsafelyUnwrapped)
            case .sync:
                preconditionFailure("a sync logged by a client that is not suspended")
            }
        }
    }

    /// The handler, parked between blocks, taken over by the caller (a compare-and-swap to running).
    private func takeOver() -> Bool {
        state.load(ordering: .relaxed) == HandlerCore.betweenBlocks
            && state.compareExchange(expected: HandlerCore.betweenBlocks, desired: HandlerCore.running,
                                     ordering: .acquiringAndReleasing).exchanged
    }

    @inlinable
    static func cell(_ raw: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Cell> {
        raw.assumingMemoryBound(to: Cell.self)
    }

    // -- the loop -----------------------------------------------------------------------

    /// What `proceed` stopped at.
    enum Outcome {
        /// The handler parked (or was handed to a client); whoever wakes it schedules it again.
        case parked
        /// A call that is a client itself, already taken off its queue: it runs in a task.
        case act(Act)
    }

    /// Called by the pool, as a plain work item on one of its threads: runs the handler until it
    /// parks; an act and the rest of the loop after it go to a runner (Runner.swift).
    func run() {
        if case .act(let act) = proceed() { runtime.carry(self, act) }
    }

    /// The handler as a client of other handlers, for its acts.
    func actingClient() -> Client {
        if let client = asClient { return client }
        let client = Client(runtime)
        asClient = client
        return client
    }

    /// Runs requests until the handler parks or meets an act.
    func proceed() -> Outcome {
        while true {
            if current == nil {
                guard let cell = popCell() else {
                    if parkBetweenBlocks() { return .parked }
                    continue
                }
                let owner = HandlerCore.cell(cell).pointee.owner!
                if case .beginWhen = owner._withUnsafeGuaranteedRef({ $0.take() }) {
                    if admit(owner.takeUnretainedValue()) { return .parked }
                    continue
                }
                current = owner
            }
            let owner = current!
            switch owner._withUnsafeGuaranteedRef({ $0.runCalls(on: target, ran: &mayHaveChanged) }) {
            case .act(let act):
                return .act(act)
            case .sync(let client):
                syncs += 1
                mayHaveChanged = true
                // Parked before the client runs again: it wakes the handler when it needs it.
                state.store(UInt(bitPattern: owner.toOpaque()), ordering: .releasing)
                client.resume()
                return .parked
            case .end:
                if ended(owner) { return .parked }
            case .caughtUp:   // still on this block (only END or a grant moves `current`)
                if parkInBlock(owner) { return .parked }
            }
        }
    }

    private func popCell() -> UnsafeMutableRawPointer? {
        let stubAddress = UnsafeMutableRawPointer(stub)
        var head = qoqHead
        var next = HandlerCore.cell(head).pointee.link.load(ordering: .acquiring)
        if head == stubAddress {
            guard let first = next else { return nil }
            qoqHead = first
            head = first
            next = HandlerCore.cell(first).pointee.link.load(ordering: .acquiring)
        }
        if let next {
            qoqHead = next
            return head
        }
        if head != qoqTail.load(ordering: .acquiring) { return nil }   // a link is under way
        link(stubAddress)
        if let after = HandlerCore.cell(head).pointee.link.load(ordering: .acquiring) {
            qoqHead = after
            return head
        }
        return nil
    }

    /// Parks between blocks unless a reservation came meanwhile; true if the runner should let go.
    /// Dekker's handshake with `link` + `wakeBetweenBlocks`: the state is stored before the tail is
    /// read here, the tail exchanged before the state is read there, all sequentially consistent,
    /// so at least one of the two sees the other.
    /// (`polling`: false from a client that took the handler over only to test a condition, and has a
    /// block of its own to go on with.)
    private func parkBetweenBlocks(polling: Bool = true) -> Bool {
        // Clients that keep reserving (mutex's) come back within microseconds: when this thread has
        // nothing else to run, wait that long before parking, so the handler goes on running beside
        // them rather than being woken again. It watches the link the next reservation writes, not
        // the tail every reservation exchanges: a poll of the tail takes its line from the clients,
        // and each of their exchanges must fetch it back.
        if polling && withPool({ $0.hasNothingElse() }) {
            let head = HandlerCore.cell(qoqHead)
            for _ in 0..<HandlerCore.idlePolls where head.pointee.link.load(ordering: .relaxed) != nil { return false }
        }
        var spins = 0
        while qoqHead != qoqTail.load(ordering: .acquiring) {   // a link under way: it lands soon
            if HandlerCore.cell(qoqHead).pointee.link.load(ordering: .acquiring) != nil { return false }
            spins += 1
            if spins > 1000 { break }
        }
        // Once the state is stored, a client may schedule the handler elsewhere: touch nothing of it.
        let head = qoqHead
        state.store(HandlerCore.betweenBlocks, ordering: .sequentiallyConsistent)
        Interleaving.yieldToOthers(at: .parkedBetweenBlocks)
        if qoqTail.load(ordering: .sequentiallyConsistent) == head { return true }
        return !state.compareExchange(expected: HandlerCore.betweenBlocks, desired: HandlerCore.running,
                                      ordering: .acquiringAndReleasing).exchanged
    }

    /// The block's client has logged nothing more yet: wait a little, then park on its queue
    /// (the client wakes the handler at whatever it logs next). True if parked.
    private func parkInBlock(_ owner: Unmanaged<PrivateQueue>) -> Bool {
        let queue = owner.takeUnretainedValue()
        for _ in 0..<HandlerCore.blockPolls where queue.hasMore() { return false }
        let (identity, head) = (queue.identity, queue.head)
        // Once the state is stored, the client may wake the handler elsewhere, which may finish the
        // block before the look at `published` below, and the client go away: a reference counted
        // here (only when parking) keeps the queue until that look.
        _ = owner.retain()
        defer { owner.release() }
        // Releasing: whoever wakes the handler runs it next and must see what this run did.
        state.store(identity, ordering: .releasing)
        Interleaving.yieldToOthers(at: .parkedInBlock)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if queue.published.load(ordering: .relaxed) == head { return true }
        return !state.compareExchange(expected: identity, desired: HandlerCore.running,
                                      ordering: .acquiringAndReleasing).exchanged
    }

    /// END: the block is over. True if the handler was handed to a waiting client.
    private func ended(_ owner: Unmanaged<PrivateQueue>) -> Bool {
        let changed = mayHaveChanged
        mayHaveChanged = false
        if let locked {
            if changed { locked.changed() }
        } else {
            current = nil
            owner._withUnsafeGuaranteedRef { $0.finishBlock() }
            if changed && !waiting.isEmpty {
                var index = 0
                while index < waiting.count {
                    let waiter = waiting[index]
                    if waiter.condition!(target) {
                        waiting.remove(at: index)
                        grant(waiter)
                        return true
                    }
                    index += 1
                }
            }
        }
        return false
    }

    /// A block with a wait condition reaches the handler: granted if the condition holds, else it
    /// waits with the others. True if granted.
    private func admit(_ queue: PrivateQueue) -> Bool {
        if queue.condition!(target) {
            grant(queue)
            return true
        }
        waiting.append(queue)
        return false
    }

    /// Hands the handler, reserved and synced, to a client whose wait condition holds.
    private func grant(_ queue: PrivateQueue) {
        queue.condition = nil
        let client = queue.granted!
        queue.granted = nil
        hold(for: queue)
        client.resume()
    }

    /// A granted (or synced in place) block becomes the current one, its client holding the handler
    /// synced; the handler parks on its queue. (Once the state is stored the client's next request may
    /// run the handler elsewhere: nothing of it is touched after.)
    private func hold(for queue: PrivateQueue) {
        syncs += 1
        mayHaveChanged = true
        current = Unmanaged.passUnretained(queue)
        state.store(queue.identity, ordering: .releasing)
    }
}

/// A handler owning one object of type `Object`. The object is touched only by the handler's calls
/// and, while a client holds the handler synced, by that client's queries.
public final class Handler<Object: AnyObject>: HandlerCore, @unchecked Sendable {
    public init(_ object: Object, runtime: Runtime) {
        super.init(target: object, runtime: runtime)
    }

    @inlinable
    var object: Object { unsafeDowncast(target, to: Object.self) }

    /// A closure on the object, as the loop calls it (see Request). The closure is cast inside a
    /// struct generic over the object: cast bare, as a generic value, it would be re-abstracted
    /// through thunks, one allocation per call; a field of type `(O) -> Void` has one layout for
    /// every class O.
    @inlinable
    static func erase(_ call: @escaping @Sendable (Object) -> Void) -> @Sendable (AnyObject) -> Void {
        unsafeBitCast(Erased(call), to: Erased<AnyObject>.self).call
    }

    @inlinable
    static func erase(_ call: @escaping @Sendable (Object, Int) -> Void) -> @Sendable (AnyObject, Int) -> Void {
        unsafeBitCast(ErasedCallWith(call), to: ErasedCallWith<AnyObject>.self).call
    }

    @inlinable
    static func erase(_ act: @escaping @Sendable (Object, Client) async -> Void) -> @Sendable (AnyObject, Client) async -> Void {
        unsafeBitCast(ErasedAct(act), to: ErasedAct<AnyObject>.self).act
    }

    @inlinable
    static func erase(_ call: @escaping @Sendable (Object, Logger) -> Void) -> @Sendable (AnyObject, Logger) -> Void {
        unsafeBitCast(ErasedLogging(call), to: ErasedLogging<AnyObject>.self).call
    }

    @inlinable
    static func erase(_ condition: @escaping (Object) -> Bool) -> (AnyObject) -> Bool {
        unsafeBitCast(ErasedCondition(condition), to: ErasedCondition<AnyObject>.self).condition
    }
}

@usableFromInline
struct Erased<O: AnyObject> {
    @usableFromInline let call: @Sendable (O) -> Void
    @inlinable init(_ call: @escaping @Sendable (O) -> Void) { self.call = call }
}

@usableFromInline
struct ErasedCallWith<O: AnyObject> {
    @usableFromInline let call: @Sendable (O, Int) -> Void
    @inlinable init(_ call: @escaping @Sendable (O, Int) -> Void) { self.call = call }
}

@usableFromInline
struct ErasedAct<O: AnyObject> {
    @usableFromInline let act: @Sendable (O, Client) async -> Void
    @inlinable init(_ act: @escaping @Sendable (O, Client) async -> Void) { self.act = act }
}

@usableFromInline
struct ErasedCondition<O: AnyObject> {
    @usableFromInline let condition: (O) -> Bool
    @inlinable init(_ condition: @escaping (O) -> Bool) { self.condition = condition }
}

@usableFromInline
struct ErasedLogging<O: AnyObject> {
    @usableFromInline let call: @Sendable (O, Logger) -> Void
    @inlinable init(_ call: @escaping @Sendable (O, Logger) -> Void) { self.call = call }
}
