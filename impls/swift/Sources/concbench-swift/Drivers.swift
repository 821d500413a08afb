import ConcbenchKernels
import Dispatch

/// Runs the timing loop in the context the specs prescribe ("Driver context") and
/// reports each iteration as soon as it ends. Returns false if a kernel threw.
func drive(_ plan: Plan, iterations: Int) -> Bool {
    switch plan {
    case let .blocking(onPool, kernel, spawns):
        // Written by the loop, read after it (on the pool: after the semaphore wait).
        let failure = Failure()
        let loop: @Sendable () -> Void = {
            var metrics: [Metric] = []
            for t in 0..<iterations {
                let sample: Sample
                do {
                    sample = try kernel(t)
                } catch {
                    failure.message = "\(error)"
                    return
                }
                ProtocolWriter.iteration(t, sample)
                metrics = sample.metrics
            }
            // The last iteration's own counts, e.g. countdown's batches.
            if !metrics.isEmpty {
                ProtocolWriter.metrics(metrics)
            }
            if let spawns {
                ProtocolWriter.spawns(spawns())
            }
        }
        if onPool {
            // driver=pool: the thesis's literal setting, one pool worker is the driver.
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                loop()
                finished.signal()
            }
            finished.wait()
        } else {
            loop()
        }
        if let message = failure.message {
            ProtocolWriter.log("kernel failed: \(message)")
            return false
        }
        return true

    case let .suspending(kernel, spawns):
        return driveInTask(kernel: kernel, spawns: spawns, iterations: iterations)
    }
}

/// sc: the whole loop inside ONE unstructured Task; the main thread only waits.
/// This function is nonisolated, so the Task inherits no actor and runs on the
/// global concurrent executor, never on the blocked main thread.
private func driveInTask(
    kernel: @escaping @Sendable (Int) async throws -> Sample,
    spawns: (@Sendable () async -> Int)?,
    iterations: Int
) -> Bool {
    let finished = DispatchSemaphore(value: 0)
    // Written by the Task before it signals; read after the wait.
    let failure = Failure()
    Task {
        do {
            var metrics: [Metric] = []
            for t in 0..<iterations {
                let sample = try await kernel(t)
                ProtocolWriter.iteration(t, sample)
                metrics = sample.metrics
            }
            if !metrics.isEmpty {
                ProtocolWriter.metrics(metrics)
            }
            if let spawns {
                ProtocolWriter.spawns(await spawns())
            }
        } catch {
            failure.message = "\(error)"
        }
        finished.signal()
    }
    finished.wait()
    if let message = failure.message {
        ProtocolWriter.log("kernel failed: \(message)")
        return false
    }
    return true
}

/// The error text of a failed run, handed from the Task or pool block to the main
/// thread, ordered by the semaphore.
private final class Failure: @unchecked Sendable {
    var message: String?
}
