import Foundation

/// A serial executor with one thread of its own that runs its jobs in the order they came (the
/// best-handoff shapes, issue 26). A job enqueued from that thread, as every hand-off of an actor
/// using it is, costs an uncontended lock and an append; the thread sleeps on a condition only when
/// the queue is empty. The default actor executor instead gives the actor back to the global pool
/// whenever its queue runs dry and asks the pool for a thread when it fills again.
final class ThreadExecutor: SerialExecutor, TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var sleeping = false
    private var stopping = false
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [unowned self] in
            loop()
            done.signal()
        }
        thread.name = name
        self.thread = thread
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        if sleeping {
            condition.signal()
        }
        condition.unlock()
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Ends the thread once every job enqueued so far has run, and waits for it.
    func shutdown() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
        done.wait()
        thread = nil
    }

    private func loop() {
        var batch: [UnownedJob] = []
        let me = asUnownedSerialExecutor()
        let taskExecutor = asUnownedTaskExecutor()
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping {
                sleeping = true
                condition.wait()
                sleeping = false
            }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            swap(&batch, &jobs)
            condition.unlock()
            for job in batch {
                job.runSynchronously(isolatedTo: me, taskExecutor: taskExecutor)
            }
            batch.removeAll(keepingCapacity: true)
        }
    }
}

/// An actor whose jobs run on a `ThreadExecutor` it is given: the best-handoff shapes' ring, place,
/// queue and hall, with their tasks preferring the same executor.
protocol ThreadExecutorActor: Actor {
    nonisolated var executor: ThreadExecutor { get }
}

extension ThreadExecutorActor {
    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }
}
