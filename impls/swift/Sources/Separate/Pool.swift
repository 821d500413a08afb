// The threads every handler and every client task of a runtime run on: at most `width` OS threads
// (one per core), however many handlers there are — a handler costs memory, not a thread.
//
// It is a TaskExecutor, so client tasks started with the runtime's executor preference run here,
// and it runs handler loops (Handler.run) as plain work items. One global FIFO under a lock feeds
// the workers; each worker has one hand-off slot: when a handler resumes a client waiting on a
// sync (Sec. 3.2's direct hand-off), the client's job goes to the slot of the thread that resumed
// it and runs there next, without a trip through the shared queue or a wake-up of another thread.

import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum Work {
    case job(UnownedJob)
    case handler(HandlerCore)
}

final class Worker: @unchecked Sendable {
    // Touched only by its own thread.
    var slot: Work?
    var expectingHandOff = false
    // What a task that just suspended asked to do once it is off this thread (Pool.whenSuspended).
    var afterJob: [() -> Void] = []
    unowned let pool: Pool

    init(pool: Pool) { self.pool = pool }
}

public final class Pool: TaskExecutor, @unchecked Sendable {
    public let width: Int
    // The shared FIFO and the sleepers, under `condition`'s lock.
    private let condition = NSCondition()
    private var queue: [Work] = []
    private var front = 0
    private var sleeping = 0
    // Work in the shared queue, readable without the lock: an idle worker watches it for a while
    // before it sleeps, so a handler woken right after (the usual rhythm of a client and its
    // handler) is picked up without a futex wake-up of a sleeping thread (several microseconds).
    private let queued = Atomic<Int>(0)
    private static let spins = 20_000
    private var stopping = false
    private var threads: [Thread] = []
    private var running = 0              // workers started and still serving

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    public init(width: Int) {
        precondition(width >= 1, "a pool needs at least one thread")
        self.width = width
        for index in 0..<width {
            let worker = Worker(pool: self)
            let thread = Thread { [self] in
                Pool.name("separate-\(index)")
                pthread_setspecific(Pool.key, Unmanaged.passUnretained(worker).toOpaque())
                condition.lock()
                running += 1
                condition.broadcast()
                condition.unlock()
                serve(worker)
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            threads.append(thread)
            thread.start()
        }
        // A pool is ready, its threads named and serving, when it is returned.
        condition.lock()
        while running < width { condition.wait() }
        condition.unlock()
    }

    /// Stops the threads once the queue is empty and waits for them; work submitted later never
    /// runs. Called from one of the pool's own jobs, that thread stops after the job.
    public func shutdown() {
        let own = Pool.currentWorker().map { $0.pool === self } ?? false
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > (own ? 1 : 0) { condition.wait() }
        condition.unlock()
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    func submit(_ work: Work) {
        if let worker = Pool.currentWorker(), worker.pool === self, worker.expectingHandOff, worker.slot == nil {
            worker.expectingHandOff = false
            worker.slot = work
            return
        }
        condition.lock()
        queue.append(work)
        queued.wrappingAdd(1, ordering: .relaxed)
        if sleeping > 0 { condition.signal() }
        condition.unlock()
    }

    /// Runs `resume` so that the job it makes runnable (a client resumed from a sync) goes to this
    /// thread's hand-off slot when this thread is one of the pool's.
    func handingOff(_ resume: () -> Void) {
        guard let worker = Pool.currentWorker(), worker.pool === self else { return resume() }
        worker.expectingHandOff = true
        resume()
        worker.expectingHandOff = false
    }

    /// Runs `action` once the current job has returned to the pool, i.e. once the task that asks has
    /// finished suspending; at once where the caller is not one of the pool's jobs. A task that
    /// publishes its continuation this way can never be resumed while it is still suspending, a
    /// race the concurrency runtime handles but ThreadSanitizer cannot see.
    func whenSuspended(_ action: @escaping () -> Void) {
        guard let worker = Pool.currentWorker(), worker.pool === self else { return action() }
        worker.afterJob.append(action)
    }

    /// Names the calling thread, as /proc, `top -H` and debuggers show it (Glibc's
    /// pthread_setname_np is not visible to Swift; a thread may write its own comm).
    static func name(_ name: String) {
        guard let file = fopen("/proc/thread-self/comm", "w") else { return }
        fputs(name, file)
        fclose(file)
    }

    static func currentWorker() -> Worker? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<Worker>.fromOpaque(raw).takeUnretainedValue()
    }

    private func next(_ worker: Worker) -> Work? {
        if let work = worker.slot {
            worker.slot = nil
            return work
        }
        watch()
        condition.lock()
        defer { condition.unlock() }
        while front == queue.count {
            if stopping { return nil }
            sleeping += 1
            condition.wait()
            sleeping -= 1
        }
        let work = queue[front]
        front += 1
        queued.wrappingSubtract(1, ordering: .relaxed)
        if front > 1024 && front * 2 > queue.count {   // compact the consumed prefix now and then
            queue.removeFirst(front)
            front = 0
        }
        return work
    }

    /// Spins a little while the shared queue is empty (the lock taken after decides).
    private func watch() {
        var spin = 0
        while queued.load(ordering: .relaxed) == 0 && spin < Pool.spins {
            if spin & 63 == 63 { sched_yield() }
            spin += 1
        }
    }

    private func serve(_ worker: Worker) {
        let executor = asUnownedTaskExecutor()
        while let work = next(worker) {
            switch work {
            case .job(let job): job.runSynchronously(on: executor)
            case .handler(let core): core.run()
            }
            while !worker.afterJob.isEmpty {
                let actions = worker.afterJob
                worker.afterJob.removeAll()
                for action in actions { action() }
            }
        }
    }
}
