{-# LANGUAGE OverloadedStrings #-}
-- | The protocol's stdout lines (ARCHITECTURE.md, "The protocol as built"): one JSON object per
-- line, written and flushed at once.
module Protocol (protocolVersion, emit, hello, iteration, Metric (..), metrics, metricValues) where

import Data.Aeson (Value, encode, object, (.=))
import qualified Data.Aeson.Key as Key
import qualified Data.ByteString.Lazy.Char8 as BL
import Data.Word (Word64)
import System.IO (hFlush, stdout)

protocolVersion :: Int
protocolVersion = 1

emit :: Value -> IO ()
emit v = BL.hPut stdout (encode v <> "\n") >> hFlush stdout

hello :: String -> String -> String -> IO ()
hello language runtime model = emit $ object
  [ "hello" .= object
      [ "protocol" .= protocolVersion, "language" .= language, "runtime" .= runtime, "model" .= model ] ]

iteration :: Int -> Word64 -> String -> IO ()
iteration i ns result = emit $ object [ "iteration" .= i, "ns" .= ns, "result" .= result ]

-- | One metric's value: an integer, or a float (NaN and infinities are left out of the line:
-- JSON has no such numbers).
data Metric = IntMetric !Integer | FloatMetric !Double
  deriving (Eq, Show)

metrics :: [(String, Word64)] -> IO ()
metrics ms = metricValues [ (name, IntMetric (toInteger value)) | (name, value) <- ms ]

metricValues :: [(String, Metric)] -> IO ()
metricValues ms = emit $ object [ "metrics" .= object (concatMap pair ms) ]
  where
    pair (name, IntMetric v) = [Key.fromString name .= v]
    pair (name, FloatMetric v)
      | isNaN v || isInfinite v = []
      | otherwise = [Key.fromString name .= v]
