/// spawn-waiting: start one waiting unit of work, wait for it, N times in a row.
public enum SpawnWaiting {
    static func result(tasks: Int, sum: Int) -> String {
        "tasks=\(tasks) sum=\(sum)"
    }
}
