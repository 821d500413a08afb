{-# LANGUAGE OverloadedStrings #-}
-- | concbench-haskell: the Haskell implementation of concbench (GHC, -threaded).
--
-- >  concbench-haskell [+RTS -N<cores> -RTS] describe
-- >  concbench-haskell [+RTS -N<cores> -RTS] <benchmark> --model M --param P --iterations K
-- >                    [--workers W] [--option key=value]...
--
-- stdout carries protocol lines only. Anything outside the table below: one line on stderr, exit
-- status 2, nothing on stdout. The table is the one declaration of what the binary serves:
-- `describe` prints it, and every argument check reads it.
module Main (main) where

import Control.Concurrent (getNumCapabilities)
import Control.Exception (SomeException, catch, displayException, fromException, throwIO)
import Control.Monad (forM_, unless, when)
import Data.Aeson (Value, object, (.=))
import qualified Data.Aeson.Key as Key
import Data.Char (isDigit)
import Data.IORef (newIORef, readIORef, writeIORef)
import Data.List (intercalate, sort)
import Data.Maybe (catMaybes, fromMaybe, isJust)
import Data.Version (showVersion)
import System.Environment (getArgs)
import System.Exit (ExitCode (..), exitWith)
import System.IO (hPutStrLn, stderr)
import System.Info (fullCompilerVersion)
import System.Mem (performMajorGC)

import Chameneos (encoreRun, maxCreatures, maxMeetings, minCreatures, reduxRun)
import Coordination (coordination)
import CowichanRun
import qualified Protocol

-- ---------------------------------------------------------------- the table

-- | A domain (docs/describe.md): inclusive integer bounds, either may be absent, or a list of
-- values; with the default the binary uses when the option is absent (documentation). An integer
-- domain's last field is the reason where it narrows a bound its benchmark's file declares
-- (benchmarks/<id>.toml [options]), printed as "reason" only when given.
data Domain
  = IntDomain (Maybe Integer) (Maybe Integer) (Maybe String) (Maybe String)
  | ValuesDomain [String] (Maybe String)

-- | What one model of a benchmark accepts: its shapes (the faithful port first) and its options.
data Served = Served { shapes :: [String], options :: [(String, Domain)] }

data Benchmark = Benchmark { paramDomain :: Domain, served :: [(String, Served)] }

models :: [(String, String)]
models =
  [ ("repa", "Repa parallel arrays (computeP, foldP, selectP on Repa's gang of -N threads): paper, the paper's own programs (randmat with parListChunk 128 over rows, thresh's histogram sequential, outer's distances computed twice); repa, randmat with par over W row chunks, thresh's histogram on the gang, outer's diagonal written in place")
  , ("par", "Control.Parallel.Strategies: one spark per static row block (parList rdeepseq), the blocks copied into one output")
  , ("seq", "sequential: the kernels on one Haskell thread")
  , ("stm", "Control.Concurrent.STM on forkIO threads: TVars and TQueues, blocking by retry (the paper's Haskell for mutex, prodcons, condition)")
  , ("mvar", "MVars on forkIO threads: modifyMVar_, the MVar-based Chan, a ring of MVars (the paper's Haskell for threadring; best-forkon: the ring on one capability with forkOn, whatever -N, a direct hand-off per hop), chameneos' meeting place as one MVar on forkOn threads (the paper's Haskell)")
  ]

-- | n ≤ 10^6 keeps a winnow candidate's flat index i·n + j below bit 40 of its sort key.
maxN :: Integer
maxN = 1000000

-- | A Cowichan benchmark: repa serves the paper's own program first (shape paper) where it does
-- other work than shape repa, which it does for randmat, thresh and outer (and so chain).
cowichan :: String -> Benchmark
cowichan bench = Benchmark (IntDomain (Just 1) (Just maxN) Nothing Nothing)
  [ ("repa", Served repaShapes opts), ("par", Served ["blocks"] opts), ("seq", Served ["plain"] opts) ]
  where
    repaShapes = if bench `elem` ["winnow", "product"] then ["repa"] else ["paper", "repa"]
    opts =
      [ ("p", IntDomain (Just 0) (Just 100) (Just "1") Nothing)
      , ("nelts", IntDomain (Just 1) Nothing (Just "{param}") Nothing)  -- n when absent
      , ("seed", IntDomain (Just 0) (Just 4294967295) (Just "0") Nothing)
      ]

-- | The coordination benchmarks: --param m (or N), the entity count n (or ring) as an option.
-- n ≤ 10^5 keeps 2n forkIO threads and their counts well inside memory (prodcons, 2n threads:
-- about 0.5 GB at n = 10^5); n·m fits an Int.
maxWorkers, maxCount :: Integer
maxWorkers = 100000
maxCount = 1000000000

coordinationBench :: [(String, [String])] -> Benchmark
coordinationBench ms = Benchmark (IntDomain (Just 0) (Just maxCount) Nothing Nothing)
  [ (m, Served sh [("n", IntDomain (Just 1) (Just maxWorkers) (Just "32") (Just workersReason))]) | (m, sh) <- ms ]
  where workersReason = "one forkIO thread per worker, 2n in prodcons and condition: prodcons takes 0.5 GB at 10^5"

-- | ring ≤ 10^6: one forkIO thread and one MVar per member (about 2 GB at 10^6).
threadring :: Benchmark
threadring = Benchmark (IntDomain (Just 0) (Just 2147483647) Nothing Nothing)
  [ ("mvar", Served ["mvar", "best-forkon"]
      [("ring", IntDomain (Just 2) (Just 1000000) (Just "503") (Just "one forkIO thread and MVar per member: 2 GB at 10^6"))]) ]

-- | Which benchmarks are coordination ones, with the name of their count option and its default.
coordinationCount :: String -> Maybe (String, Integer)
coordinationCount b
  | b `elem` ["mutex", "prodcons", "condition"] = Just ("n", 32)
  | b == "threadring" = Just ("ring", 503)
  | otherwise = Nothing

-- | chameneos: --param is the union of variant=encore's C (minCreatures..maxCreatures, checked
-- in resolve) and variant=redux's n, the meetings per game; meetings is encore's M.
chameneos :: Benchmark
chameneos = Benchmark (IntDomain (Just 1) (Just maxMeetings) Nothing Nothing)
  [ ("mvar", Served ["rendezvous"]
      [ ("variant", ValuesDomain ["encore", "redux"] (Just "encore"))
      , ("meetings", IntDomain (Just 1) (Just maxMeetings) (Just "8000000")
          (Just "the creatures' meetings, 2·M, are summed in an Int (64 bits)")) ]) ]

-- | variant=encore's --param (C), narrower than the table's param domain: a combination the
-- table cannot express.
encoreCreatures :: Domain
encoreCreatures = IntDomain (Just minCreatures) (Just maxCreatures) Nothing Nothing

benchmarks :: [(String, Benchmark)]
benchmarks = [ (b, cowichan b) | b <- ["randmat", "thresh", "winnow", "outer", "product", "chain"] ] ++
  [ ("mutex", coordinationBench [("stm", ["stm-batched", "stm"]), ("mvar", ["mvar"])])
  , ("prodcons", coordinationBench [("stm", ["stm-batched", "stm"]), ("mvar", ["chan"])])
  , ("condition", coordinationBench [("stm", ["stm"])])
  , ("threadring", threadring)
  , ("chameneos", chameneos)
  ]

-- ---------------------------------------------------------------- describe

describeValue :: Value
describeValue = object
  [ "describe" .= object
      [ "protocol" .= Protocol.protocolVersion
      , "language" .= ("haskell" :: String)
      , "models" .= object [ Key.fromString m .= text | (m, text) <- models ]
      , "benchmarks" .= object [ Key.fromString b .= benchmarkValue def | (b, def) <- benchmarks ]
      ]
  ]
  where
    benchmarkValue (Benchmark param ms) = object
      [ "param" .= domainValue param
      , "models" .= object [ Key.fromString m .= servedValue s | (m, s) <- ms ] ]
    servedValue (Served sh os) = object
      [ "shapes" .= sh, "options" .= object [ Key.fromString k .= domainValue d | (k, d) <- os ] ]

domainValue :: Domain -> Value
domainValue (IntDomain lo hi def why) = object $
  ("int" .= object (catMaybes [("min" .=) <$> lo, ("max" .=) <$> hi])) : field "default" def ++ field "reason" why
domainValue (ValuesDomain vs def) = object $ ("values" .= vs) : field "default" def

-- | An optional string field: left out when absent.
field :: Key.Key -> Maybe String -> [(Key.Key, Value)]
field key = maybe [] (\v -> [key .= v])

-- ---------------------------------------------------------------- checks

-- | Nothing when the value is inside the domain, else why not.
check :: Domain -> String -> Maybe String
check (IntDomain lo hi _ _) s
  | not (isDecimal s) = Just "not a decimal integer"
  | maybe False (v <) lo || maybe False (v >) hi = Just ("out of range" ++ bounds)
  | otherwise = Nothing
  where
    v = read s :: Integer
    bounds = case (lo, hi) of
      (Just a, Just b) -> " " ++ show a ++ ".." ++ show b
      (Just a, Nothing) -> " (at least " ++ show a ++ ")"
      (Nothing, Just b) -> " (at most " ++ show b ++ ")"
      _ -> ""
check (ValuesDomain vs _) s
  | s `elem` vs = Nothing
  | otherwise = Just ("expected one of " ++ intercalate ", " vs)

-- | An optional '-', then digits only.
isDecimal :: String -> Bool
isDecimal ('-' : ds) = not (null ds) && all isDigit ds
isDecimal ds = not (null ds) && all isDigit ds

-- | The protocol's own flags.
iterationsDomain, workersDomain :: Domain
iterationsDomain = IntDomain (Just 1) (Just 2147483647) Nothing Nothing
workersDomain = IntDomain (Just 1) (Just 1048576) Nothing Nothing

data Cli = Cli
  { cBenchmark :: String, cModel :: Maybe String, cParam :: Maybe String
  , cIterations :: Maybe Int, cWorkers :: Maybe Int, cOptions :: [(String, String)] }

usage :: String
usage = "usage: concbench-haskell describe | <benchmark> --model M --param P --iterations K [--workers W] [--option key=value]..."

parseArgs :: [String] -> Either String Cli
parseArgs [] = Left usage
parseArgs ("describe" : _) = Left "describe takes no other argument"
parseArgs (b@('-' : _) : _) = Left ("the first argument must be the benchmark, got " ++ show b)
parseArgs (b : rest) = go (Cli b Nothing Nothing Nothing Nothing []) rest
  where
    go c [] = Right c
    go c (a : as)
      | take 2 a /= "--" = Left ("unexpected argument " ++ show a)
      | '=' `elem` a = Left (show a ++ ": give " ++ takeWhile (/= '=') a ++ "'s value as the next word (docs/describe.md)")
      | a `notElem` ["--model", "--param", "--iterations", "--workers", "--option"] =
          Left ("unknown flag " ++ show a ++ " (known: --model --param --iterations --workers --option)")
      | otherwise = case as of
          v : as' -> set c a v >>= \c' -> go c' as'
          [] -> Left (a ++ " needs a value")
    set c "--model" v = Right c { cModel = Just v }
    set c "--param" v = Right c { cParam = Just v }
    set c "--iterations" v = (\i -> c { cIterations = Just i }) <$> protocolInt "--iterations" iterationsDomain v
    set c "--workers" v = (\w -> c { cWorkers = Just w }) <$> protocolInt "--workers" workersDomain v
    set c _ v = case break (== '=') v of
      (key@(_ : _), '=' : value) -> Right c { cOptions = (key, value) : filter ((/= key) . fst) (cOptions c) }
      _ -> Left ("--option " ++ show v ++ ": expected key=value")
    protocolInt flag d v = maybe (Right (fromInteger (read v))) (\why -> Left (flag ++ " " ++ show v ++ ": " ++ why)) (check d v)

-- | A command line checked against the table.
data Request = Request
  { rBenchmark :: String, rModel :: String, rShape :: String, rIterations :: Int
  , rWorkers :: Maybe Int, rN :: Int, rP :: Int, rNelts :: Int, rSeed :: Integer
  , rCount :: Int    -- a coordination benchmark's n (or ring)
  , rVariant :: String, rMeetings :: Int }  -- chameneos

-- | Checks the command line against the table: benchmark, model, --param, shape, option keys
-- and values; then the combinations the domains cannot express (nelts ≤ n²: winnow picks
-- nelts of at most n² candidates; chameneos: C within encoreCreatures with variant=encore, no
-- meetings option with variant=redux, whose meetings per game are --param).
resolve :: Cli -> Either String Request
resolve c = do
  bench <- maybe (Left ("unknown benchmark " ++ show (cBenchmark c) ++ " (known: " ++ known (map fst benchmarks) ++ ")")) Right
             (lookup (cBenchmark c) benchmarks)
  model <- maybe (Left "missing --model") Right (cModel c)
  param <- maybe (Left "missing --param") Right (cParam c)
  iters <- maybe (Left "missing --iterations") Right (cIterations c)
  s <- maybe (Left ("unknown model " ++ show model ++ " for " ++ cBenchmark c ++ " (known: " ++ known (map fst (served bench)) ++ ")")) Right
         (lookup model (served bench))
  forM_ (check (paramDomain bench) param) $ \why -> Left ("--param " ++ show param ++ " for " ++ cBenchmark c ++ ": " ++ why)
  shape <- case lookup "shape" (cOptions c) of
    Nothing -> Right (head (shapes s))
    Just v | v `elem` shapes s -> Right v
           | otherwise -> Left ("unknown shape " ++ show v ++ " for " ++ cBenchmark c ++ " --model " ++ model ++ " (known: " ++ known (shapes s) ++ ")")
  forM_ (filter ((/= "shape") . fst) (cOptions c)) $ \(key, value) -> case lookup key (options s) of
    Nothing -> Left ("unknown option " ++ show key ++ " for " ++ cBenchmark c ++ " --model " ++ model ++ " (known: " ++ known ("shape" : map fst (options s)) ++ ")")
    Just d -> forM_ (check d value) $ \why -> Left ("--option " ++ key ++ "=" ++ value ++ ": " ++ why)
  let n = read param :: Integer
      opt key = maybe Nothing (Just . read) (lookup key (cOptions c)) :: Maybe Integer
      nelts = fromMaybe n (opt "nelts")
  when (nelts > n * n) $ Left ("--option nelts=" ++ show nelts ++ ": more than n*n=" ++ show (n * n) ++ " cells, winnow cannot pick them")
  let variant = fromMaybe "encore" (lookup "variant" (cOptions c))
  when (cBenchmark c == "chameneos") $ case variant of
    "encore" -> forM_ (check encoreCreatures param) $ \why ->
      Left ("--param " ++ show param ++ " (C, the number of creatures, with variant=encore): " ++ why)
    _ -> when (isJust (lookup "meetings" (cOptions c))) $
      Left "--option meetings belongs to variant=encore; with variant=redux the meetings per game are --param"
  return Request
    { rBenchmark = cBenchmark c, rModel = model, rShape = shape, rIterations = iters, rWorkers = cWorkers c
    , rN = fromInteger n, rP = fromInteger (fromMaybe 1 (opt "p")), rNelts = fromInteger nelts
    , rSeed = fromMaybe 0 (opt "seed")
    , rCount = maybe 0 (\(key, def) -> fromInteger (fromMaybe def (opt key))) (coordinationCount (cBenchmark c))
    , rVariant = variant, rMeetings = fromInteger (fromMaybe 8000000 (opt "meetings")) }
  where known = intercalate ", " . sort

-- ---------------------------------------------------------------- main

main :: IO ()
main = do
  args <- getArgs
  case args of
    ["describe"] -> Protocol.emit describeValue
    _ -> either refuse run (parseArgs args >>= resolve)

-- | A request outside the table: one line on stderr, nothing on stdout, exit 2.
refuse :: String -> IO ()
refuse msg = do
  hPutStrLn stderr ("concbench-haskell: " ++ map (\ch -> if ch == '\n' || ch == '\r' then ' ' else ch) msg)
  exitWith (ExitFailure 2)

run :: Request -> IO ()
run r = body `catch` fatal
  where
    body = do
      caps <- getNumCapabilities
      let w = fromMaybe caps (rWorkers r)
          setup = Setup (rN r) (rP r) (rNelts r) (fromInteger (rSeed r)) w
      Protocol.hello "haskell" ("GHC " ++ showVersion fullCompilerVersion ++ " -threaded -N" ++ show caps) (rModel r)
      job <- case (rBenchmark r, coordinationCount (rBenchmark r)) of
        ("chameneos", _) -> return $
          if rVariant r == "redux" then reduxRun (rN r) else encoreRun (rN r) (rMeetings r)
        (_, Just _) -> return $ do
          (ns, res) <- coordination (rBenchmark r) (rShape r) (rCount r) (rN r)
          return (ns, res, [])
        _ -> do
          let kernels = if rShape r == "paper" then "paper" else rModel r
          iter <- prepareCowichan (rBenchmark r) (kernelsFor kernels w) setup
          return $ do
            o <- iter
            return (oNs o, oResult o, [ (k, Protocol.IntMetric (toInteger v)) | (k, v) <- oMetrics o ])
      lastMetrics <- newIORef []
      forM_ [0 .. rIterations r - 1] $ \i -> do
        -- the previous iteration's garbage is collected here, outside the timed region
        performMajorGC
        (ns, res, ms) <- job
        Protocol.iteration i ns res
        writeIORef lastMetrics ms
      ms <- readIORef lastMetrics
      unless (null ms) (Protocol.metricValues ms)
    -- a broken run (winnow with fewer candidates than nelts): one line, exit 1
    fatal :: SomeException -> IO ()
    fatal e = case fromException e of
      Just code -> throwIO (code :: ExitCode)
      Nothing -> do
        hPutStrLn stderr ("concbench-haskell: fatal: " ++ unwords (lines (displayException e)))
        exitWith (ExitFailure 1)
