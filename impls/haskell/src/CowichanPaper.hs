{-# LANGUAGE BangPatterns, TypeOperators #-}
-- Repa's documented flags, as in CowichanRepa.
{-# OPTIONS_GHC -fno-liberate-case -funfolding-use-threshold1000 #-}
-- | Model repa, shape paper: the paper's own Haskell programs (the quicksilver sources of its
-- benchmarks) where they do other work than shape repa. randmat: one list element per row,
-- sparked in chunks of 128 rows (parListChunk 128), concatenated by main. thresh: the maximum with
-- foldAllP, the histogram in one sequential loop on main, the mask with computeUnboxedP. outer:
-- the distances as a delayed array, reduced to the row maxima by foldP, then computed all over
-- again, with the maxima on the diagonal, by computeUnboxedP: a second full parallel pass over
-- nelts² cells. winnow and product are shape repa's (the paper's programs do what it does).
module CowichanPaper (paperRandmat, paperThresh, paperOuter) where

import Control.Exception (evaluate)
import Control.Concurrent (myThreadId, threadCapability)
import Control.Parallel.Strategies (parListChunk, rseq, using)
import Data.Array.Repa (Array, DIM1, DIM2, U, Z (..), (:.) (..))
import qualified Data.Array.Repa as R
import qualified Data.IntMap.Strict as IntMap
import Data.Word (Word32, Word64)
import GHC.Clock (getMonotonicTimeNSec)
import System.IO.Unsafe (unsafePerformIO)
import qualified Data.Vector.Unboxed as U

import Cowichan
import CowichanRepa (distanceAt, originDistance, threshWith)

-- | The rows, 128 to a spark; C (compute_ns) is the busiest capability's total of row times (each
-- row is timed where it runs), the concatenation being the rest of T.
paperRandmat :: Int -> Word32 -> IO (Matrix, Maybe Word64)
paperRandmat n seed = do
  rows <- evaluate (map timedRow [0 .. n - 1] `using` parListChunk 128 rseq)
  let busy = IntMap.fromListWith (+) [(cap, ns) | (cap, ns, _) <- rows]
  m <- evaluate (U.concat [row | (_, _, row) <- rows])
  return (m, Just (maximum (0 : IntMap.elems busy)))
  where
    timedRow i = unsafePerformIO $ do
      (cap, _) <- myThreadId >>= threadCapability
      t0 <- getMonotonicTimeNSec
      row <- evaluate (randmatRows seed n i (i + 1))
      t1 <- getMonotonicTimeNSec
      return (cap, t1 - t0, row)
    {-# NOINLINE timedRow #-}

-- | The histogram (and the maximum, which it also finds) in one pass on main, between the two
-- parallel passes of shape repa's thresh.
paperThresh :: Int -> Int -> Matrix -> IO ((Int, Mask), Maybe Word64)
paperThresh = threshWith (\n m -> fst <$> evaluate (histRange m 0 (n * n)))

-- | Every distance computed twice: once for the row maxima, once into the output.
paperOuter :: Points -> IO ((Vec, Vec), Maybe Word64)
paperOuter pts = do
  let ne = U.length pts
      distances = R.fromFunction (Z :. ne :. ne) (distanceAt pts)
  rowMax <- R.foldP max (-1) distances
  let mx = R.toUnboxed rowMax
      withMax ix@(Z :. i :. j)
        | i == j = fromIntegral ne * U.unsafeIndex mx i
        | otherwise = distanceAt pts ix
  d <- R.computeUnboxedP (R.fromFunction (Z :. ne :. ne) withMax) :: IO (Array U DIM2 Double)
  v <- R.computeUnboxedP (R.fromFunction (Z :. ne) (originDistance pts)) :: IO (Array U DIM1 Double)
  return ((R.toUnboxed d, R.toUnboxed v), Nothing)
