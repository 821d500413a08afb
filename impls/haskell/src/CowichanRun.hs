{-# LANGUAGE BangPatterns #-}
-- | How each Cowichan benchmark runs under each model: the kernels of the model, a standalone
-- stage's input built once before the first iteration (untimed, chain.md rule 3), and one timed
-- iteration whose clock (GHC.Clock, monotonic) stops only once the output is fully evaluated.
module CowichanRun
  ( Kernels (..), kernelsFor
  , Setup (..), Outcome (..)
  , prepareCowichan
  ) where

import Control.DeepSeq (NFData, force)
import Control.Exception (evaluate)
import Data.Word (Word32, Word64)
import GHC.Clock (getMonotonicTimeNSec)

import Cowichan
import CowichanPaper
import CowichanPar
import CowichanRepa

-- | One model's five kernels; each returns its output and, for the models that copy pieces into
-- the output, the longest worker's compute time (the paper's C).
data Kernels = Kernels
  { kRandmat :: Int -> Word32 -> IO (Matrix, Maybe Word64)                      -- n, seed
  , kThresh :: Int -> Int -> Matrix -> IO ((Int, Mask), Maybe Word64)            -- n, p
  , kWinnow :: Int -> Int -> Matrix -> Mask -> IO ((Int, Points), Maybe Word64)  -- n, nelts
  , kOuter :: Points -> IO ((Vec, Vec), Maybe Word64)
  , kProduct :: Vec -> Vec -> IO (Vec, Maybe Word64)
  }

-- | The kernels of a model (repa, par, seq), or of repa's shape paper, for W workers.
kernelsFor :: String -> Int -> Kernels
kernelsFor "repa" w = Kernels (repaRandmat w) repaThresh repaWinnow repaOuter repaProduct
kernelsFor "paper" _ = Kernels paperRandmat paperThresh repaWinnow paperOuter repaProduct
kernelsFor "par" w = Kernels (parRandmat w) (parThresh w) (parWinnow w) (parOuter w) (parProduct w)
kernelsFor _ _ = Kernels
  { kRandmat = \n seed -> plain (seqRandmat n seed)
  , kThresh = \n p m -> plain (seqThresh n p m)
  , kWinnow = \n nelts m mask -> plain (seqWinnow n nelts m mask)
  , kOuter = plain . seqOuter
  , kProduct = \d v -> plain (seqProduct d v)
  }
  where plain x = return (x, Nothing)

-- | A request's numbers: n, p, nelts, seed and W.
data Setup = Setup { sN :: !Int, sP :: !Int, sNelts :: !Int, sSeed :: !Word32, sWorkers :: !Int }

-- | One iteration: its time, its result string, its metrics.
data Outcome = Outcome { oNs :: !Word64, oResult :: String, oMetrics :: [(String, Word64)] }

-- | Runs a kernel and evaluates its output in full before the clock stops.
timed :: NFData a => IO (a, Maybe Word64) -> IO (a, Maybe Word64, Word64)
timed act = do
  t0 <- getMonotonicTimeNSec
  (x, c) <- act
  x' <- evaluate (force x)
  c' <- evaluate (force c)
  t1 <- getMonotonicTimeNSec
  return (x', c', t1 - t0)

computeMetric :: Maybe Word64 -> [(String, Word64)]
computeMetric = maybe [] (\c -> [("compute_ns", c)])

-- | Builds the benchmark's input (untimed, with the par kernels: any correct code may) and
-- returns the action that runs one iteration.
prepareCowichan :: String -> Kernels -> Setup -> IO (IO Outcome)
prepareCowichan bench k (Setup n p nelts seed w) = case bench of
  "randmat" -> return $ do
    (m, c, ns) <- timed (kRandmat k n seed)
    return (Outcome ns (randmatResult m) (computeMetric c))
  "thresh" -> do
    m <- matrix
    return $ do
      ((t, mask), c, ns) <- timed (kThresh k n p m)
      return (Outcome ns (threshResult t mask) (computeMetric c))
  "winnow" -> do
    m <- matrix
    mask <- maskOf m
    return $ do
      ((cands, pts), c, ns) <- timed (kWinnow k n nelts m mask)
      return (Outcome ns (winnowResult cands pts) (computeMetric c))
  "outer" -> do
    pts <- points
    return $ do
      ((d, v), c, ns) <- timed (kOuter k pts)
      return (Outcome ns (outerResult d v) (computeMetric c))
  "product" -> do
    pts <- points
    (d, v) <- input (kOuter inputs pts)
    return $ do
      (r, c, ns) <- timed (kProduct k d v)
      return (Outcome ns (productResult r) (computeMetric c))
  "chain" -> return (chainIteration k n p nelts seed)
  _ -> error ("no Cowichan benchmark " ++ bench)
  where
    inputs = kernelsFor "par" w
    input :: NFData a => IO (a, Maybe Word64) -> IO a
    input act = act >>= evaluate . force . fst
    matrix = input (kRandmat inputs n seed)
    maskOf m = snd <$> input (kThresh inputs n p m)
    points = do
      m <- matrix
      mask <- maskOf m
      snd <$> input (kWinnow inputs n nelts m mask)

-- | The five stages back to back, each parallel inside and complete before the next; the clock
-- covers all five. Metrics: each stage's wall time and, where every stage has one, the sum of
-- the stages' compute times.
chainIteration :: Kernels -> Int -> Int -> Int -> Word32 -> IO Outcome
chainIteration k n p nelts seed = do
  t0 <- getMonotonicTimeNSec
  (m, c1, ns1) <- timed (kRandmat k n seed)
  ((_, mask), c2, ns2) <- timed (kThresh k n p m)
  ((_, pts), c3, ns3) <- timed (kWinnow k n nelts m mask)
  ((d, v), c4, ns4) <- timed (kOuter k pts)
  (r, c5, ns5) <- timed (kProduct k d v)
  t1 <- getMonotonicTimeNSec
  let stages = zip ["stage_randmat_ns", "stage_thresh_ns", "stage_winnow_ns", "stage_outer_ns", "stage_product_ns"]
                   [ns1, ns2, ns3, ns4, ns5]
  return (Outcome (t1 - t0) (productResult r) (stages ++ computeMetric (sum <$> sequence [c1, c2, c3, c4, c5])))
