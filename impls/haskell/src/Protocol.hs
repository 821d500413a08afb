{-# LANGUAGE OverloadedStrings #-}
-- | The protocol's stdout lines (ARCHITECTURE.md, "The protocol as built"): one JSON object per
-- line, written and flushed at once.
module Protocol (protocolVersion, emit, hello, iteration, metrics) where

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

metrics :: [(String, Word64)] -> IO ()
metrics ms = emit $ object [ "metrics" .= object [ Key.fromString name .= value | (name, value) <- ms ] ]
