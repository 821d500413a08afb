#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ConcbenchKernels
import Foundation

/// Writes the protocol's JSON lines with Foundation's JSONSerialization. Each line
/// goes out in one write(2) on fd 1, so it is flushed at once and no stdio buffer
/// (a global Swift 6 rejects) is involved.
enum ProtocolWriter {
    static func describe() {
        emit(Catalog.description())
    }

    static func hello(model: String) {
        emit([
            "hello": [
                "protocol": 1, "language": Catalog.language, "runtime": runtimeVersion, "model": model,
            ] as [String: Any]
        ])
    }

    static func iteration(_ index: Int, _ sample: Sample) {
        emit(["iteration": index, "ns": sample.ns, "result": sample.result])
    }

    static func spawns(_ count: Int) {
        metrics([Metric("spawns", count)])
    }

    /// One `metrics` line holding every figure given.
    static func metrics(_ list: [Metric]) {
        var fields: [String: Any] = [:]
        for metric in list {
            switch metric.value {
            case .integer(let v): fields[metric.name] = v
            case .real(let v): fields[metric.name] = v
            }
        }
        emit(["metrics": fields])
    }

    /// One line to stderr, prefixed with the program name.
    static func log(_ message: String) {
        writeAll(fd: 2, Array("concbench-swift: \(message)\n".utf8))
    }

    /// The object as one line of JSON. Keys sorted, so that every run prints the
    /// same bytes; JSONSerialization never writes a raw newline inside a line.
    static func line(_ object: [String: Any]) -> String {
        // Only strings, integers, finite doubles (Metric checks), arrays and
        // dictionaries reach this point, all valid JSON values.
        let data = try! JSONSerialization.data(
            withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func emit(_ object: [String: Any]) {
        writeAll(fd: 1, Array((line(object) + "\n").utf8))
    }

    private static func writeAll(fd: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
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
}
