/// spawn-actors: create an actor, make one awaited call to it, drop it; N times.
public enum SpawnActors {
    static func result(actors: Int, total: Int) -> String {
        "actors=\(actors) total=\(total)"
    }
}
