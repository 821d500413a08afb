import Dispatch
import Foundation

extension SpawnWaiting {
    /// gcd/sync (faithful, Listing 3.1): a synchronous dispatch to the default global
    /// queue; libdispatch usually runs it on the calling thread, which the spec keeps.
    public static func gcdSync(tasks n: Int, waitMs: Int) -> Sample {
        let seconds = Double(waitMs) / 1000
        return Sample.timing({
            var sum = 0
            for i in stride(from: 1, through: n, by: 1) {
                var got = 0
                DispatchQueue.global().sync {
                    Thread.sleep(forTimeInterval: seconds)
                    got = i
                }
                sum += got
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }

    /// gcd/async-wait: an asynchronous dispatch plus a semaphore, forcing a real
    /// hand-off to a pool thread.
    public static func gcdAsyncWait(tasks n: Int, waitMs: Int) -> Sample {
        let seconds = Double(waitMs) / 1000
        return Sample.timing({
            let done = DispatchSemaphore(value: 0)
            var sum = 0
            for i in stride(from: 1, through: n, by: 1) {
                // Written by the block before it signals; read after the wait.
                let slot = HandOff(0)
                DispatchQueue.global().async {
                    Thread.sleep(forTimeInterval: seconds)
                    slot.value = i
                    done.signal()
                }
                done.wait()
                sum += slot.value
            }
            return sum
        }, format: { result(tasks: n, sum: $0) })
    }
}
