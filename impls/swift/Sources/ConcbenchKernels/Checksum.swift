/// The specs' checksum: Σ v[k]·(k+1) over the row-major flattening, wrapping mod 2^64.
public func checksum(rows: [[Int]]) -> UInt64 {
    var cs: UInt64 = 0
    var k: UInt64 = 1
    for row in rows {
        for v in row {
            // A negative value enters as its two's-complement bit pattern.
            cs = cs &+ UInt64(bitPattern: Int64(v)) &* k
            k &+= 1
        }
    }
    return cs
}
