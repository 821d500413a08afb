// A pool as the process's global executor: every job the concurrency runtime would hand to its own
// global executor (a task with no executor preference and no actor, starting or resuming) goes to
// the pool instead, through the runtime's `swift_task_enqueueGlobal_hook`.
//
// Why: a task with an executor preference pays for it at every resumption. The runtime looks the
// preference up under the task's status-record lock twice (once to enqueue the task, once in the
// executor switch that follows the `await`), and that was a third of prodcons' time. A task with
// no preference, on a global executor that is the pool, resumes on the same threads without either.
//
// One pool at a time may own it, and only where the process lets one runtime schedule everything
// (the benchmark binary, which runs one model per process). Delayed jobs (`Task.sleep`) still go to
// the runtime's own executor and run on its threads; such a task comes to the pool at its next
// resumption.

import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum GlobalExecutor {
    private typealias Original = @convention(thin) (UnownedJob) -> Void
    private typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    // Written only by `own` and `release`, which the owner word serialises.
    /// The runtime's hook variable (nil where this runtime has none: nothing can be owned).
    nonisolated(unsafe) private static let slot: UnsafeMutablePointer<Hook?>? =
        dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook")?.assumingMemoryBound(to: Hook?.self)

    /// The owning pool, unretained (it gives ownership up before it stops), or 0.
    private static let owner = Atomic<UInt>(0)

    /// Makes `pool` the global executor; false if another pool owns it (or none can).
    static func own(_ pool: Pool) -> Bool {
        guard let slot else { return false }
        let bits = UInt(bitPattern: Unmanaged.passUnretained(pool).toOpaque())
        guard owner.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        slot.pointee = { job, original in
            let bits = GlobalExecutor.owner.load(ordering: .acquiring)
            guard bits != 0 else { return original(job) }
            Unmanaged<Pool>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef {
                $0.submit(Work(global: job))
            }
        }
        return true
    }

    /// Gives the global executor back to the runtime: jobs enqueued from now on go to its own. (The
    /// pool's shutdown does, first; as with any shutdown, no task may still need the pool then.)
    static func release(_ pool: Pool) {
        let bits = UInt(bitPattern: Unmanaged.passUnretained(pool).toOpaque())
        if owner.compareExchange(expected: bits, desired: 0, ordering: .acquiringAndReleasing).exchanged {
            slot?.pointee = nil
        }
    }

    /// The generic executor, as a job of the global executor runs on it: no actor, no task executor.
    static let generic: UnownedSerialExecutor = {
        precondition(MemoryLayout<UnownedSerialExecutor>.size == 2 * MemoryLayout<UInt>.size)
        return unsafeBitCast((UInt(0), UInt(0)), to: UnownedSerialExecutor.self)
    }()
}
