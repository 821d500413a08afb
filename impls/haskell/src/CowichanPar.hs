{-# LANGUAGE BangPatterns #-}
-- | Model par, shape strategies: Control.Parallel.Strategies over rule 2's static row blocks. Each
-- block is one spark (parList) that computes its own piece in full; main then copies the pieces
-- into one contiguous output (U.concat), inside the timer. A block also reports its own compute
-- time, so the model can report compute_ns, the paper's C (the longest block, without the copy).
module CowichanPar
  ( timedBlock, parBlocks
  , parRandmat, parThresh, parWinnow, parOuter, parProduct
  ) where

import Control.DeepSeq (NFData, force)
import Control.Exception (evaluate)
import Control.Parallel.Strategies (parList, rdeepseq, using)
import Data.Word (Word32, Word64)
import GHC.Clock (getMonotonicTimeNSec)
import System.IO.Unsafe (unsafePerformIO)
import qualified Data.Vector.Unboxed as U

import Cowichan

-- | f x evaluated in full, with the monotonic time it took. The clock is read inside the spark
-- that runs it (unsafePerformIO, which also keeps two threads from both running one block).
timedBlock :: NFData a => (b -> a) -> b -> (Word64, a)
timedBlock f x = unsafePerformIO $ do
  t0 <- getMonotonicTimeNSec
  y <- evaluate (force (f x))
  t1 <- getMonotonicTimeNSec
  return (t1 - t0, y)
{-# NOINLINE timedBlock #-}

-- | One spark per non-empty block of R rows over W workers: f lo hi, with its time.
parBlocks :: NFData a => Int -> Int -> (Int -> Int -> a) -> [(Word64, a)]
parBlocks r w f = map (timedBlock (uncurry f)) (rowBlocks r w) `using` parList rdeepseq

-- | The blocks evaluated (every spark done or run by main), then the longest one's time.
runBlocks :: NFData a => Int -> Int -> (Int -> Int -> a) -> IO ([a], Word64)
runBlocks r w f = do
  bs <- evaluate (force (parBlocks r w f))
  return (map snd bs, maximum (0 : map fst bs))

parRandmat :: Int -> Int -> Word32 -> IO (Matrix, Maybe Word64)
parRandmat w n seed = do
  (blocks, c) <- runBlocks n w (randmatRows seed n)
  return (U.concat blocks, Just c)

-- | Phase 1: per-block histograms and maxima, merged by main; the threshold; phase 2: per-block
-- masks. A block's C is its histogram time plus its mask time.
parThresh :: Int -> Int -> Int -> Matrix -> IO ((Int, Mask), Maybe Word64)
parThresh w n p m = do
  hs <- evaluate (force (parBlocks n w (\lo hi -> histRange m (lo * n) (hi * n))))
  let (hist, nmax) = mergeHists (map snd hs)
  !t <- evaluate (chooseThreshold n p hist nmax)
  ms <- evaluate (force (parBlocks n w (\lo hi -> maskRange m t (lo * n) (hi * n))))
  let c = maximum (0 : zipWith (+) (map fst hs) (map fst ms))
  return ((t, U.concat (map snd ms)), Just c)

-- | Per block: gather and sort its candidates; then the sorted runs merged pairwise in a tree
-- (stride doubling), each level's merges in parallel; then the pick in main. C follows the
-- critical path: a merged run carries the longer of its inputs' times plus its own merge.
parWinnow :: Int -> Int -> Int -> Matrix -> Mask -> IO ((Int, Points), Maybe Word64)
parWinnow w n nelts m mask = do
  runs <- evaluate (force (parBlocks n w (\lo hi -> sortKeys (gatherRange m mask (lo * n) (hi * n)))))
  (cRuns, sorted) <- mergeAll runs
  (cPick, pts) <- evaluate (timedBlock (pickPoints n nelts) sorted)
  return ((U.length sorted, pts), Just (cRuns + cPick))
  where
    mergeAll [] = return (0, U.empty)
    mergeAll [r] = return r
    mergeAll rs = evaluate (force (level rs `using` parList rdeepseq)) >>= mergeAll
    level (a : b : rest) = merged a b : level rest
    level rest = rest
    merged (ta, a) (tb, b) = let (tm, ab) = timedBlock (uncurry mergeKeys) (a, b) in (max ta tb + tm, ab)

parOuter :: Int -> Points -> IO ((Vec, Vec), Maybe Word64)
parOuter w pts = do
  (blocks, c) <- runBlocks (U.length pts) w (outerRows pts)
  return ((U.concat (map fst blocks), U.concat (map snd blocks)), Just c)

parProduct :: Int -> Vec -> Vec -> IO (Vec, Maybe Word64)
parProduct w d v = do
  (blocks, c) <- runBlocks (U.length v) w (productRows d v)
  return (U.concat blocks, Just c)
