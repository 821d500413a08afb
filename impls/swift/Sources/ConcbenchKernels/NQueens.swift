/// nqueens: count all placements, one child per valid partial board (INNCABS port).
public enum NQueens {
    /// Listing 3.7: is the queen just placed in column `col` safe from columns 0..<col?
    static func valid(_ n: Int, _ col: Int, _ history: [Int]) -> Bool {
        if col == 0 { return true }
        let row = history[col]
        for prevCol in 0..<col {
            let prevRow = history[prevCol]
            if row == prevRow { return false }
            if col - prevCol == abs(row - prevRow) { return false }
        }
        return true
    }
}
