// One client's queue for one handler (seed 001, Sec. 3.1): the client logs, the handler runs. It is
// a ring of cells with no read-modify-write on either side: the client owns the tail, the handler
// the head, and each publishes its index with a releasing store.
//
// A ring starts small (a runtime may have thousands of queues). When the client finds it full, it
// moves on to a ring twice the size: it writes a `moved` cell pointing there, which the handler
// follows once it has taken everything before it (and then frees the old ring). There is no bound:
// a SCOOP/Qs call never waits, and a call that waited for room while its client held another
// handler could close a cycle with a client doing the same the other way round.
//
// A block begins with a `begin` cell, and that cell is also the block's node in the handler's
// queue of queues (Handler.swift): reserving links it there, so a reservation allocates nothing.
// No reference is counted per block: the client's cache keeps the queue, and a client that goes
// away before the handler has run all its blocks leaves the queue to its runtime (Runtime.retire),
// which frees it once the handler has (the handler's last touch of a block is `endsRun`).
//
// A handler parked on this queue is woken by whatever the client logs next: a call (the CALL and
// RUN rules run it at once, whatever the client does after), a sync or the block's END; a block is
// woken for when it is reserved (HandlerCore.link). Each costs the client a fence and a load.

import Synchronization

// The handler's loop is not generic: a request carries its closure with the object's type erased.
// A closure taking one class-bound argument takes it as one reference, whatever its class, so the
// erased closure is the same function (Handler.erase).
@usableFromInline
enum Request {
    case empty
    case begin
    /// A block with a wait condition begins: the condition and the continuation to resume are
    /// in the queue's fields (one such block at a time: its client waits until it is granted).
    case beginWhen
    case call(@Sendable (AnyObject) -> Void)
    /// A call with its argument beside it: a command that captures nothing has no context to allocate.
    case callWith(@Sendable (AnyObject, Int) -> Void, Int)
    /// A call that is a client itself: it may reserve other handlers, so it may suspend.
    case act(@Sendable (AnyObject, Client) async -> Void)
    /// A call that is a client itself but only logs (Logging.swift): run in the loop where it can.
    case logs(@Sendable (AnyObject, Logger) -> Void)
    case sync(UnsafeContinuation<Void, Never>)
    case end
    /// The END of a block that only found its wait condition false (`none`, `dynamic`): it changed
    /// nothing, so it wakes no waiter (counted, two such waiters would wake each other for ever).
    case endTested
    /// The client went on in a larger ring (its cells, its capacity).
    case moved(UnsafeMutablePointer<Cell>, Int)
}

@usableFromInline
struct Cell: ~Copyable {
    /// The next begin cell in the handler's queue of queues.
    @usableFromInline let link = Atomic<UnsafeMutableRawPointer?>(nil)
    @usableFromInline var request: Request = .empty
    @usableFromInline let owner: Unmanaged<PrivateQueue>?

    @usableFromInline init(owner: Unmanaged<PrivateQueue>?) { self.owner = owner }
}

@usableFromInline
final class PrivateQueue: @unchecked Sendable {
    @usableFromInline static var initialCapacity: Int { 32 }

    // Not a strong reference: handlers whose acts reserve each other would hold each other through
    // their clients' caches. A client reaches its queue only through the handler it reserves, and a
    // handler with work is kept by its runner.
    @usableFromInline unowned(unsafe) let handler: HandlerCore
    /// The one queue of a handler under `none` and `dynamic`, which clients take turns to hold.
    @usableFromInline let isShared: Bool
    @usableFromInline let coalesces: Bool
    let census: Census

    // -- the client's side (a cache line of its own, see Padding)
    @usableFromInline let clientLine = Padding()
    // The ring the client writes, and the ring the handler reads: the same but for the moments
    // between a move and the handler reaching its `moved` cell.
    @usableFromInline var cells: UnsafeMutablePointer<Cell>
    @usableFromInline var capacity: Int
    @usableFromInline var mask: Int
    @usableFromInline var tail = 0
    @usableFromInline var headSeen = 0
    /// The handler has run everything logged so far and waits on this queue (dynamic sync
    /// coalescing, Sec. 3.4.1).
    @usableFromInline var synced = false
    @usableFromInline let published = Atomic<Int>(0)
    /// Blocks the client has ended.
    @usableFromInline var endsLogged = 0
    /// How many blocks the holding client has open on this handler: more than one when it reserves
    /// a handler it already holds, whose inner blocks are part of the outer one (no begin, no END).
    @usableFromInline var depth = 0
    /// The shared queue's holder (its client's identity; 0 when none): a client that locked the
    /// handler finds here that it holds it already. Written by the holder only, under the lock.
    @usableFromInline let holder = Atomic<UInt>(0)

    // -- a reservation with a wait condition, written before its `beginWhen` cell is linked
    var condition: ((AnyObject) -> Bool)?
    var granted: UnsafeContinuation<Void, Never>?
    // -- a sync, written before its cell is logged
    private var syncing: UnsafeContinuation<Void, Never>?

    // -- the handler's side
    let handlerLine = Padding()
    var readCells: UnsafeMutablePointer<Cell>
    var readCapacity: Int
    var readMask: Int
    var head = 0
    var tailSeen = 0
    @usableFromInline let consumed = Atomic<Int>(0)
    /// Blocks the handler has finished with: its last touch of the queue for each.
    private var endsTaken = 0
    private let endsRun = Atomic<Int>(0)
    let endLine = Padding()

    init(handler: HandlerCore, shared: Bool) {
        self.handler = handler
        isShared = shared
        coalesces = handler.runtime.coalescesSyncs
        census = handler.runtime.census
        capacity = PrivateQueue.initialCapacity
        mask = capacity - 1
        cells = .allocate(capacity: capacity)
        (readCells, readCapacity, readMask) = (cells, capacity, mask)
        let owner = Unmanaged.passUnretained(self)
        for index in 0..<capacity { (cells + index).initialize(to: Cell(owner: owner)) }
        census.count.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        // Nothing is in flight: the handler has followed every move the client made.
        cells.deinitialize(count: capacity)
        cells.deallocate()
        census.count.wrappingSubtract(1, ordering: .relaxed)   // its handler may be gone: not through it
    }

    /// Moves the client on to a ring twice the size; the last free cell of this one says so.
    @usableFromInline
    func grow() {
        let larger = capacity * 2
        let next = UnsafeMutablePointer<Cell>.allocate(capacity: larger)
        let owner = Unmanaged.passUnretained(self)
        for index in 0..<larger { (next + index).initialize(to: Cell(owner: owner)) }
        putNow(.moved(next, larger))
        (cells, capacity, mask) = (next, larger, larger - 1)
    }

    /// The value of the handler's state word that means "parked, waiting on this queue".
    @usableFromInline var identity: UInt { UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque()) }

    // -- client side --------------------------------------------------------------------

    /// Whether a request fits without a move or a wait.
    @inlinable
    var hasRoom: Bool { tail &- headSeen < capacity - 1 }

    /// Logs one request that fits.
    @inlinable
    func putNow(_ request: Request) {
        // The handler left the cell empty (nothing to release): initialized, not assigned.
        withUnsafeMutablePointer(to: &cells[tail & mask].request) { $0.initialize(to: request) }
        tail &+= 1
        published.store(tail, ordering: .releasing)
    }

    /// Makes room for one request: the cached head may be stale, else the ring grows.
    @inlinable @inline(__always)
    func ensureRoom() { if !hasRoom { makeRoom() } }

    /// Logs one request, growing the ring first if it is full.
    @inlinable @inline(__always)
    func put(_ request: Request) {
        ensureRoom()
        putNow(request)
    }

    /// Writes a begin cell and returns it, to be linked.
    @inlinable
    func begin(_ kind: Request = .begin) -> UnsafeMutableRawPointer {
        ensureRoom()
        return beginNow(kind)
    }

    /// The shared queue's BEGIN, logged by the client that has just taken the handler's block lock:
    /// it becomes the holder, so that a block it opens inside this one finds the handler held.
    @inlinable
    func beginHeld(by client: UInt) {
        holder.store(client, ordering: .relaxed)
        put(.begin)
    }

    /// Whether `client` holds this handler now (has a block open on it).
    @inlinable
    func isHeld(by client: UInt) -> Bool {
        isShared ? holder.load(ordering: .relaxed) == client : depth > 0
    }

    /// `begin` once there is room.
    @inlinable
    func beginNow(_ kind: Request) -> UnsafeMutableRawPointer {
        let cell = cells + (tail & mask)
        putNow(kind)
        return UnsafeMutableRawPointer(cell)
    }

    /// Makes what was logged visible to a handler that parked on this queue, and wakes it.
    @inlinable
    func publish() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        let identity = identity
        Unmanaged.passUnretained(handler)._withUnsafeGuaranteedRef { $0.wake(from: identity) }
    }

    /// The ring is full (but for the cell kept for a move): grows it unless the handler has taken
    /// cells since the client last looked.
    @usableFromInline
    func makeRoom() {
        headSeen = consumed.load(ordering: .acquiring)
        if !hasRoom { grow() }
    }

    @usableFromInline
    nonisolated(nonsending) func awaitSync() async {
        if coalesces && handler.syncInPlace(self) {
            synced = true
            return
        }
        ensureRoom()
        await _unsafeInheritExecutor_withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            syncing = continuation
            handler.withPool { $0.whenSuspended(.sync(.passUnretained(self))) }
        }
        headSeen = consumed.load(ordering: .acquiring)
        synced = true
    }

    /// A block with a wait condition, as its client suspends: the condition and the continuation
    /// are set before the handler can see the block (it does once the client is off its thread,
    /// `reserveWhen`); granted, the handler resumes the client.
    @usableFromInline
    func awaitGrant(_ condition: @escaping (AnyObject) -> Bool, _ continuation: UnsafeContinuation<Void, Never>) {
        self.condition = condition
        granted = continuation
        handler.withPool { $0.whenSuspended(.reserveWhen(.passUnretained(self))) }
    }

    /// `awaitSync`, once the client has suspended. Once the sync is logged, the handler may answer
    /// it and the client run on elsewhere, end its block and go away, freeing this queue (and, its
    /// program done, the handler): after `putNow` nothing here touches either but through locals,
    /// the handler held by a reference for the wake.
    func logSync() {
        let continuation = syncing.unsafelyUnwrapped
        syncing = nil
        let (handler, identity) = (self.handler, self.identity)
        putNow(.sync(continuation))
        Interleaving.yieldToOthers(at: .syncLogged)
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        handler.wake(from: identity)   // if this queue is gone, at worst a handler woken for nothing
    }

    /// A block with a wait condition, once the client has suspended: the client takes over a
    /// handler parked between blocks, or links the block for it to reach. Either may grant it at
    /// once, and the client go away (see `logSync`): the handler is held by a local reference.
    func reserveWhen() {
        let handler = self.handler
        if !handler.claim(for: self) {
            handler.link(beginNow(.beginWhen))
            Interleaving.yieldToOthers(at: .reservationLinked)
            handler.wakeBetweenBlocks()
        }
    }

    // -- handler side -------------------------------------------------------------------

    /// The next request logged, or nil if the handler has caught up with the client.
    func take() -> Request? {
        while true {
            if head == tailSeen {
                tailSeen = published.load(ordering: .acquiring)
                if head == tailSeen { return nil }
            }
            // Moved out, not copied: no reference counted for the closure. Left empty: the handler's
            // write to the line makes the client's next write to it cheaper, not dearer.
            let request = withUnsafeMutablePointer(to: &readCells[head & readMask].request) { slot in
                let request = slot.move()
                slot.initialize(to: .empty)
                return request
            }
            head &+= 1
            if case .moved(let next, let size) = request {
                readCells.deinitialize(count: readCapacity)
                readCells.deallocate()
                (readCells, readCapacity, readMask) = (next, size, size - 1)
            }
            consumed.store(head, ordering: .releasing)
            if case .moved = request { continue }
            return request
        }
    }

    /// What stopped `runCalls`.
    enum Stop {
        /// The client has logged nothing more yet.
        case caughtUp
        case end
        case sync(UnsafeContinuation<Void, Never>)
        /// A call that is a client itself, taken off the queue: it runs in a runner.
        case act(Act)
    }

    /// Runs the calls logged on `target`, in order, until the block's END, a sync, an act or the
    /// last request logged so far; sets `ran` if it ran one. (A method of the queue so that the
    /// loop holds it without counting references.)
    func runCalls(on target: AnyObject, ran: inout Bool) -> Stop {
        while let request = take() {
            switch request {
            case .call(let call):
                call(target)
                ran = true
            case .callWith(let call, let argument):
                call(target, argument)
                ran = true
            case .act(let act):
                ran = true
                return .act(.act(act))
            case .logs(let call):
                ran = true
                if handler.locksBlocks { return .act(.logging(call)) }
                call(target, Logger(handler.actingClient(), collecting: nil))
            case .sync(let client):
                return .sync(client)
            case .end:
                return .end
            case .endTested:
                ran = false   // the block only synced
                return .end
            case .begin, .beginWhen, .empty, .moved:
                break
            }
        }
        return .caughtUp
    }

    /// The handler's last touch of this queue for a block, after its END: from here on the queue
    /// may be freed, once it is the client's last block (`isFinished`).
    func finishBlock() {
        endsTaken &+= 1
        endsRun.store(endsTaken, ordering: .releasing)
    }

    /// Whether the handler is done with every block the client ended (read once the client is gone).
    var isFinished: Bool { endsRun.load(ordering: .acquiring) == endsLogged }

    /// Whether the client has logged something the handler has not taken.
    func hasMore() -> Bool { published.load(ordering: .acquiring) != head }
}

// The client's common path holds its queue unmanaged: the client's cache keeps the queue (the
// handler keeps the shared one), and a strong local would cost a retain and a release per block.
// Only the paths that suspend take a reference, for the time they are suspended.
extension Unmanaged where Instance == PrivateQueue {
    @inlinable @inline(__always)
    func with<T>(_ body: (PrivateQueue) -> T) -> T { _withUnsafeGuaranteedRef(body) }

    /// Logs a call (or an act), and wakes the handler if it parked on this queue: it runs the call
    /// now, not at the client's next sync or END. The block is no longer synced.
    @inlinable @inline(__always)
    func logCall(_ request: Request) {
        with { queue in
            queue.put(request)
            queue.synced = false
            queue.publish()
        }
    }

    /// SYNC: returns when the handler has run everything logged so far and waits on this queue; at
    /// once if it already does and nothing was logged since (dynamic sync coalescing).
    @inlinable @inline(__always)
    nonisolated(nonsending) func sync() async {
        if with({ $0.coalesces && $0.synced }) { return }
        await takeUnretainedValue().awaitSync()
    }
}
