// The threads every handler and every client task of a runtime run on: at most `width` OS threads
// (one per core), however many handlers there are — a handler costs memory, not a thread.
//
// It is a TaskExecutor, so client tasks started with the runtime's executor preference, and the
// runners that carry handlers, run here; where the pool is the process's global executor
// (GlobalExecutor.swift), so do tasks with no preference at all. Scheduling is by hand-off, after
// Go's `runnext` and Tokio's LIFO slot: a job made ready by the job running on a worker (a handler
// woken by its client, a client resumed by its handler) goes to that worker's `next` slot and runs
// there as soon as the running job suspends, without a wake-up of another thread. A job it
// displaces goes to the worker's own queue, which idle workers steal from; they take a `next` job
// too, but only one that has waited there a while (its worker is busy with a long job). Jobs from
// outside the pool go to a shared injector. An idle worker searches a bounded while, then parks on
// its own condition variable; a worker is woken only when work lands in a queue and nobody is
// already searching.

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a worker runs, in one word: a job of a task that prefers this pool; a job of the global
/// executor, where the pool owns it (GlobalExecutor.swift), its bit 1 set; or a handler woken with
/// work (Handler.run), its reference retained, its bit 0 set. (Jobs and objects are 16-byte aligned.)
struct Work {
    let bits: UInt

    init(bits: UInt) { self.bits = bits }
    init(_ job: UnownedJob) { bits = unsafeBitCast(job, to: UInt.self) }
    init(global job: UnownedJob) { bits = unsafeBitCast(job, to: UInt.self) | 2 }
    init(_ handler: HandlerCore) { bits = UInt(bitPattern: Unmanaged.passRetained(handler).toOpaque()) | 1 }

    func run(on executor: UnownedTaskExecutor) {
        switch bits & 3 {
        case 0:
            unsafeBitCast(bits, to: UnownedJob.self).runSynchronously(on: executor)
        case 2:
            // As the runtime's own global executor runs it: on no actor and no task executor, so
            // that the task's switches back to "no isolation" find it already there.
            unsafeBitCast(bits & ~3, to: UnownedJob.self).runSynchronously(on: GlobalExecutor.generic)
        default:
            Unmanaged<HandlerCore>.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~3)!).takeRetainedValue().run()
        }
    }
}

/// A FIFO of work under a spin lock: a worker's own queue or the pool's injector.
final class WorkQueue: @unchecked Sendable {
    private let lock = SpinLock()
    private var ring: [Work?] = Array(repeating: nil, count: 64)
    private var head = 0, count = 0
    /// How much work it holds, readable without the lock (searchers and parkers look first).
    let size = Atomic<Int>(0)

    func push(_ work: Work) {
        lock.lock()
        if count == ring.count { grow() }
        ring[(head + count) & (ring.count - 1)] = work
        count += 1
        size.store(count, ordering: .sequentiallyConsistent)
        lock.unlock()
    }

    func pop() -> Work? {
        if size.load(ordering: .relaxed) == 0 { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard count > 0 else { return nil }
        let job = ring[head]
        ring[head] = nil
        head = (head + 1) & (ring.count - 1)
        count -= 1
        size.store(count, ordering: .relaxed)
        return job
    }

    private func grow() {
        var larger = [Work?](repeating: nil, count: ring.count * 2)
        for i in 0..<count { larger[i] = ring[(head + i) & (ring.count - 1)] }
        ring = larger
        head = 0
    }
}

/// What a task that has just suspended asked to do once it is off its thread: any action, or one
/// of the client's own steps, which allocate and retain nothing (their state is in the queue).
enum AfterSuspending {
    case action(() -> Void)
    /// A block with a wait condition is reserved (Client.separate(_:until:_:)).
    case reserveWhen(Unmanaged<PrivateQueue>)
    /// A sync is logged (PrivateQueue.awaitSync).
    case sync(Unmanaged<PrivateQueue>)

    func run() {
        switch self {
        case .action(let action): action()
        case .reserveWhen(let queue): queue._withUnsafeGuaranteedRef { $0.reserveWhen() }
        case .sync(let queue): queue._withUnsafeGuaranteedRef { $0.logSync() }
        }
    }
}

final class Worker: @unchecked Sendable {
    let index: Int
    // The header (with the reference count, which a stealer's reference would touch) apart from
    // the slot the worker hands off through.
    let headerLine = Padding()
    /// The hand-off slot: a job's bits, 0 when empty. Its worker and stealing workers exchange it.
    let next = Atomic<UInt>(0)
    let queue = WorkQueue()
    // Parking: `parked` under the condition's lock.
    let parking = NSCondition()
    var parked = false
    // What a task that just suspended asked to do once it is off this thread (Pool.whenSuspended).
    var afterJob: [AfterSuspending] = []
    // While searching: each other worker's `next` as last seen, and for how many rounds.
    var seen: [UInt]
    var seenRounds: [Int]

    init(index: Int, width: Int) {
        self.index = index
        seen = Array(repeating: 0, count: width)
        seenRounds = Array(repeating: 0, count: width)
    }

    func takeNext() -> Work? {
        if next.load(ordering: .relaxed) == 0 { return nil }
        let bits = next.exchange(0, ordering: .acquiringAndReleasing)
        return bits == 0 ? nil : Work(bits: bits)
    }
}

public final class Pool: TaskExecutor, @unchecked Sendable {
    // The header, with the reference count, on a line apart from the counters every submit reads.
    private let headerLine = Padding()
    public let width: Int
    let workers: [Worker]
    // The same, borrowed: an idle worker's search reads the others' slots without retaining them.
    private let peers: [Unmanaged<Worker>]
    private let injector = WorkQueue()
    private let sleepers = Atomic<Int>(0)
    private let searching = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let lifecycle = NSCondition()
    private var running = 0              // threads started and still serving, under `lifecycle`

    // A `next` job runs at most this many times in a row before the queue gets its turn, so two
    // jobs handing off to each other cannot starve the rest.
    private static let nextStreak = 16
    // An idle worker's search: rounds over every queue, each followed by a short spin; a `next`
    // job is stolen only when it was seen there one round before.
    private static let searchRounds = 256
    private static let spinPerRound = 64
    // Rounds a `next` job must stay put before it is stolen (a few microseconds: its own worker
    // would have run it by then if its current job were short).
    private static let roundsBeforeSteal = 16

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    public init(width: Int) {
        precondition(width >= 1, "a pool needs at least one thread")
        self.width = width
        workers = (0..<width).map { Worker(index: $0, width: width) }
        peers = workers.map { .passUnretained($0) }
        for (index, worker) in workers.enumerated() {
            let thread = Thread { [self] in
                Pool.name("separate-\(index)")
                pthread_setspecific(Pool.key, Unmanaged.passUnretained(worker).toOpaque())
                lifecycle.lock()
                running += 1
                lifecycle.broadcast()
                lifecycle.unlock()
                serve(worker)
                lifecycle.lock()
                running -= 1
                lifecycle.broadcast()
                lifecycle.unlock()
            }
            thread.start()
        }
        // A pool is ready, its threads named and serving, when it is returned.
        lifecycle.lock()
        while running < width { lifecycle.wait() }
        lifecycle.unlock()
    }

    /// Stops the threads once the queues are empty and waits for them; work submitted later never
    /// runs. Called from one of the pool's own jobs, that thread stops after the job.
    public func shutdown() {
        GlobalExecutor.release(self)   // from now on, the runtime's own executor runs global jobs
        let own = withOwnWorker { _ in } != nil
        stopping.store(true, ordering: .sequentiallyConsistent)
        for worker in workers { wake(worker) }
        lifecycle.lock()
        while running > (own ? 1 : 0) { lifecycle.wait() }
        lifecycle.unlock()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(Work(UnownedJob(job)))
    }

    func submit(_ work: Work) {
        let handedOff = withOwnWorker { worker -> Bool in
            let displaced = worker.next.exchange(work.bits, ordering: .acquiringAndReleasing)
            if displaced != 0 {
                worker.queue.push(Work(bits: displaced))
                notify()
            }
            return true
        } ?? false
        if handedOff { return }
        injector.push(work)
        notify()
    }

    /// Runs `action` once the current job has returned to the pool, i.e. once the task that asks has
    /// finished suspending; at once where the caller is not one of the pool's jobs. A task that
    /// publishes its continuation this way can never be resumed while it is still suspending, a
    /// race the concurrency runtime handles but ThreadSanitizer cannot see.
    func whenSuspended(_ action: @escaping () -> Void) { whenSuspended(.action(action)) }

    func whenSuspended(_ step: AfterSuspending) {
        if withOwnWorker({ $0.afterJob.append(step) }) == nil { step.run() }
    }

    /// Whether the calling thread is one of the pool's.
    var runsCaller: Bool { withOwnWorker { _ in true } ?? false }

    /// Whether the calling thread is one of the pool's with no job waiting for it.
    func hasNothingElse() -> Bool {
        withOwnWorker { worker in
            worker.next.load(ordering: .relaxed) == 0 && worker.queue.size.load(ordering: .relaxed) == 0
        } ?? false
    }

    /// `body` on the calling thread's worker if it is one of this pool's (two runtimes may run in
    /// one process), else nil. The worker is borrowed and compared by address: no reference is
    /// counted, as this runs on every hand-off and in the handler's polling loop.
    @inline(__always)
    private func withOwnWorker<T>(_ body: (Worker) -> T) -> T? {
        guard let raw = pthread_getspecific(Pool.key) else { return nil }
        return Unmanaged<Worker>.fromOpaque(raw)._withUnsafeGuaranteedRef { worker in
            worker.index < width && peers[worker.index].toOpaque() == raw ? body(worker) : nil
        }
    }

    /// Names the calling thread, as /proc, `top -H` and debuggers show it (Glibc's
    /// pthread_setname_np is not visible to Swift; a thread may write its own comm).
    static func name(_ name: String) {
        guard let file = fopen("/proc/thread-self/comm", "w") else { return }
        fputs(name, file)
        fclose(file)
    }

    // -- the worker loop ------------------------------------------------------------------

    private func serve(_ worker: Worker) {
        let executor = asUnownedTaskExecutor()
        var streak = 0
        while let job = find(worker, streak: &streak) {
            job.run(on: executor)
            var done = 0
            while done < worker.afterJob.count {
                let step = worker.afterJob[done]
                done += 1
                step.run()
            }
            worker.afterJob.removeAll(keepingCapacity: true)
        }
    }

    private func find(_ worker: Worker, streak: inout Int) -> Work? {
        while true {
            if streak < Pool.nextStreak, let job = worker.takeNext() {
                streak += 1
                return job
            }
            streak = 0
            if let job = worker.queue.pop() ?? injector.pop() ?? worker.takeNext() { return job }
            if let job = search(worker) { return job }
            if !park(worker) { return nil }
        }
    }

    /// Looks for work elsewhere for a bounded while: other workers' queues, the injector, and a
    /// `next` job that stays put while its worker is busy.
    private func search(_ worker: Worker) -> Work? {
        searching.wrappingAdd(1, ordering: .sequentiallyConsistent)
        for index in 0..<width { worker.seenRounds[index] = 0 }
        var found: Work?
        rounds: for _ in 0..<Pool.searchRounds {
            if let job = injector.pop() { found = job; break }
            for index in 0..<width where index != worker.index {
                let victim = peers[index]
                if let job = victim._withUnsafeGuaranteedRef({ $0.queue.pop() }) { found = job; break rounds }
                let waiting = victim._withUnsafeGuaranteedRef { $0.next.load(ordering: .relaxed) }
                if waiting == 0 || waiting != worker.seen[index] {
                    worker.seen[index] = waiting
                    worker.seenRounds[index] = 0
                    continue
                }
                worker.seenRounds[index] += 1
                if worker.seenRounds[index] >= Pool.roundsBeforeSteal,
                   victim._withUnsafeGuaranteedRef({
                       $0.next.compareExchange(expected: waiting, desired: 0, ordering: .acquiringAndReleasing).exchanged
                   }) {
                    found = Work(bits: waiting)
                    break rounds
                }
            }
            if stopping.load(ordering: .relaxed) { break }
            var spin = 0
            while spin < Pool.spinPerRound && injector.size.load(ordering: .relaxed) == 0 { spin += 1 }
        }
        searching.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        if found != nil && hasQueuedWork() { notify() }   // more where that came from: let another look
        return found
    }

    private func hasQueuedWork() -> Bool {
        if injector.size.load(ordering: .sequentiallyConsistent) > 0 { return true }
        return workers.contains { $0.queue.size.load(ordering: .sequentiallyConsistent) > 0 }
    }

    /// Sleeps until woken; false once the pool stops.
    private func park(_ worker: Worker) -> Bool {
        worker.parking.lock()
        worker.parked = true
        worker.parking.unlock()
        sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if hasQueuedWork() || stopping.load(ordering: .sequentiallyConsistent) {
            worker.parking.lock()
            if worker.parked {
                worker.parked = false
                sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            }
            worker.parking.unlock()
            return !(stopping.load(ordering: .sequentiallyConsistent) && !hasQueuedWork())
        }
        worker.parking.lock()
        while worker.parked { worker.parking.wait() }
        worker.parking.unlock()
        return true
    }

    /// Work landed in a queue: wake a parked worker unless one is already searching.
    private func notify() {
        atomicMemoryFence(ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .relaxed) > 0 && searching.load(ordering: .relaxed) == 0 {
            for worker in workers where wake(worker) { return }
        }
    }

    @discardableResult
    private func wake(_ worker: Worker) -> Bool {
        worker.parking.lock()
        defer { worker.parking.unlock() }
        guard worker.parked else { return false }
        worker.parked = false
        sleepers.wrappingSubtract(1, ordering: .sequentiallyConsistent)
        worker.parking.signal()
        return true
    }
}
