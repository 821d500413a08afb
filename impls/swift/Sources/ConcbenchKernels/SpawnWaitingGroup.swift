/// spawn-waiting-group: start N waiting tasks in one group and join them once.
public enum SpawnWaitingGroup {
    static func result(tasks: Int, sum: Int) -> String {
        "tasks=\(tasks) sum=\(sum)"
    }
}
