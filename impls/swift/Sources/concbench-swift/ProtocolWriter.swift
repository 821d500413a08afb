#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConcbenchKernels

/// Writes the protocol's JSON lines. Each line goes out in one write(2) on fd 1, so
/// it is flushed at once and no stdio buffer (a global Swift 6 rejects) is involved.
enum ProtocolWriter {
    static func hello(model: String) {
        emit(
            "{\"hello\": {\"protocol\": 1, \"language\": \"swift\", "
                + "\"runtime\": \(json(runtimeVersion)), \"model\": \(json(model))}}")
    }

    static func iteration(_ index: Int, _ sample: Sample) {
        emit(
            "{\"iteration\": \(index), \"ns\": \(sample.ns), "
                + "\"result\": \(json(sample.result))}")
    }

    static func spawns(_ count: Int) {
        metrics([Metric("spawns", count)])
    }

    /// One `metrics` line holding every figure given, in order.
    static func metrics(_ list: [Metric]) {
        let fields = list.map { "\(json($0.name)): \($0.json)" }.joined(separator: ", ")
        emit("{\"metrics\": {\(fields)}}")
    }

    /// One line to stderr, prefixed with the program name.
    static func log(_ message: String) {
        writeAll(fd: 2, "concbench-swift: \(message)\n")
    }

    private static func emit(_ line: String) {
        writeAll(fd: 1, line + "\n")
    }

    private static func writeAll(fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n > 0 {
                    offset += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// A JSON string literal; results are ASCII, but escape anyway so that a
    /// surprising string can never break the line format.
    static func json(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
