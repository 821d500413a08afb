extension NQueens {
    /// seq/plain: the same recursion, history copy per candidate included, with no
    /// tasks: the baseline for what the task machinery costs.
    static func plain(_ n: Int, _ col: Int, _ history: [Int]) -> Int {
        if col == n { return 1 }
        var count = 0
        for row in 0..<n {
            let newHistory = history + [row]
            if valid(n, col, newHistory) {
                count += plain(n, col + 1, newHistory)
            }
        }
        return count
    }

    public static func seqPlain(n: Int) -> Sample {
        Sample.timing({ plain(n, 0, []) }, format: { String($0) })
    }
}
