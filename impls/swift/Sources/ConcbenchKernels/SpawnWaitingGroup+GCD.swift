import Dispatch
import Foundation

extension SpawnWaitingGroup {
    /// gcd/group (faithful, Listing 3.2): N async dispatches in one group, each
    /// blocking its pool thread in a sleep; one group wait blocks the driver.
    public static func gcdGroup(tasks n: Int, waitMs: Int) -> Sample {
        let seconds = Double(waitMs) / 1000
        // Prepared outside the timed region; the group wait orders the slot writes
        // before the summation.
        let slots = Slots(count: n + 1)
        return Sample.timing({
            let group = DispatchGroup()
            for i in stride(from: 1, through: n, by: 1) {
                DispatchQueue.global().async(group: group) {
                    Thread.sleep(forTimeInterval: seconds)
                    slots[i] = i
                }
            }
            group.wait()
            return slots.sum()
        }, format: { result(tasks: n, sum: $0) })
    }
}
