/**
 * The driver's types (impls/jvm/src/concbench/Driver.java) under the names the kernels use, an Outcome made
 * from Scala pairs, and the Java maps the driver takes.
 */
package object concbench {
  type Bench = Driver.Bench
  type Request = Driver.Request
  type UsageError = Driver.UsageError
  type Domain = Driver.Domain
  type Outcome = Driver.Outcome

  object Outcome {
    /** One timed iteration; the metrics are Int, Long or Double, kept in the order given. */
    def apply(ns: Long, result: String, metrics: Seq[(String, Any)]): Outcome =
      new Driver.Outcome(ns, result, this.metrics(metrics))

    def metrics(pairs: Seq[(String, Any)]): java.util.Map[String, Number] =
      javaMap(pairs.map { case (k, v) => k -> v.asInstanceOf[Number] })
  }

  /** Pairs in their order, as the driver's tables and its JSON writer take them. */
  def javaMap[V](pairs: Seq[(String, V)]): java.util.Map[String, V] = {
    val m = new java.util.LinkedHashMap[String, V]
    for ((k, v) <- pairs) m.put(k, v)
    m
  }
}
