extension Fannkuch {
    /// sc/task-group: one child task per chunk in a task group, combined with
    /// `for await` in completion order.
    public static func scTaskGroup(_ split: Split) async -> Sample {
        await Sample.timing({
            await withTaskGroup(of: Partial.self) { group in
                for t in 0..<split.tasks {
                    group.addTask { task(t, of: split) }
                }
                var total = Partial()
                for await partial in group {
                    total.combine(partial)
                }
                return total
            }
        }, format: result)
    }
}
