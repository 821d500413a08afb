{-# LANGUAGE BangPatterns, TypeOperators #-}
-- Repa's documented flags: unfold its INLINE-heavy code fully into these loops.
{-# OPTIONS_GHC -fno-liberate-case -funfolding-use-threshold1000 #-}
-- | Model repa, shape repa: the paper's Haskell (chain.md "Haskell (paper)"). Repa parallel arrays
-- on Repa's gang of -N threads: computeUnboxedP maps, foldP / foldAllP reductions and selectP's
-- parallel filter. randmat is the exception the paper made: `par` on row chunks (rule 2, W chunks)
-- followed by a sequential concatenation. Arrays are Repa U arrays over the same unboxed vectors
-- the other models use (fromUnboxed / toUnboxed copy nothing).
module CowichanRepa
  ( repaRandmat, repaThresh, repaWinnow, repaOuter, repaProduct
  , threshWith, distanceAt, originDistance
  ) where

import Control.Exception (evaluate)
import Control.Monad (forM_)
import Control.Parallel (par, pseq)
import Data.Array.Repa (Array, DIM1, DIM2, U, Z (..), (:.) (..), All (..), Any (..))
import qualified Data.Array.Repa as R
import Data.Array.Repa.Eval.Gang (gangIO, gangSize, theGang)
import Data.Word (Word8, Word32, Word64)
import qualified Data.Vector.Unboxed as U
import qualified Data.Vector.Unboxed.Mutable as MU

import Cowichan
import CowichanPar (timedBlock)

-- | Each chunk of rows sparked with `par`, then concatenated in order by main. The chunks are
-- copied into the output, so C (compute_ns) is the longest chunk's own time.
repaRandmat :: Int -> Int -> Word32 -> IO (Matrix, Maybe Word64)
repaRandmat w n seed = do
  let chunks = [timedBlock (uncurry (randmatRows seed n)) b | b <- rowBlocks n w]
      sparked = foldr par () chunks
  m <- evaluate (sparked `pseq` U.concat (map snd chunks))
  return (m, Just (maximum (0 : map fst chunks)))

-- | foldAllP for the maximum; the histogram on Repa's gang (one local histogram per gang thread
-- over its rule-2 block of rows, merged by main: Repa has no histogram fold); the mask with
-- computeUnboxedP of a map.
repaThresh :: Int -> Int -> Matrix -> IO ((Int, Mask), Maybe Word64)
repaThresh = threshWith gangHistogram

-- | thresh with the histogram made by `histogram` (n, the matrix); the maximum and the mask as
-- repaThresh says.
threshWith :: (Int -> Matrix -> IO (U.Vector Int)) -> Int -> Int -> Matrix -> IO ((Int, Mask), Maybe Word64)
threshWith histogram n p m = do
  let arr = R.fromUnboxed (Z :. n :. n) m :: Array U DIM2 Word8
  nmax <- R.foldAllP max 0 arr
  hist <- histogram n m
  let !t = chooseThreshold n p hist (fromIntegral nmax)
      t8 = fromIntegral t
  mask <- R.computeUnboxedP (R.map (\x -> if x >= t8 then 1 else 0) arr)
  return ((t, R.toUnboxed mask), Nothing)

gangHistogram :: Int -> Matrix -> IO (U.Vector Int)
gangHistogram n m = do
  let g = gangSize theGang
      blocks = zip (scanl (+) 0 hs) hs where hs = blockSizes n g
  parts <- MU.replicate (g * 100) 0
  gangIO theGang $ \tid -> do
    let (lo, h) = blocks !! tid
        (local, _) = histRange m (lo * n) ((lo + h) * n)
    forM_ [0 .. 99] $ \v -> MU.unsafeWrite parts (tid * 100 + v) (U.unsafeIndex local v)
  flat <- U.unsafeFreeze parts
  return (U.generate 100 (\v -> sum [flat U.! (tid * 100 + v) | tid <- [0 .. g - 1]]))

-- | selectP gathers the masked cells' keys in parallel; Repa has no sort, so the candidates are
-- sorted sequentially (introsort); the pick is a computeUnboxedP over nelts indices.
repaWinnow :: Int -> Int -> Matrix -> Mask -> IO ((Int, Points), Maybe Word64)
repaWinnow n nelts m mask = do
  keys <- R.selectP (\k -> U.unsafeIndex mask k /= 0) (\k -> keyOf (U.unsafeIndex m k) k) (n * n)
  sorted <- evaluate (sortKeys (R.toUnboxed keys))
  let k = U.length sorted
  chunk <- evaluate (winnowChunk k nelts)
  pts <- R.computeUnboxedP (R.fromFunction (Z :. nelts)
           (\(Z :. e) -> decodeKey n (U.unsafeIndex sorted (e * chunk)))) :: IO (Array U DIM1 (Int, Int))
  return ((k, R.toUnboxed pts), Nothing)

-- | The off-diagonal distances with computeUnboxedP of a fromFunction (the diagonal held at -1,
-- the running maximum's start), the row maxima with foldP, then the nelts diagonal cells written
-- in place (a second full pass over nelts² doubles would only copy); v with computeUnboxedP.
repaOuter :: Points -> IO ((Vec, Vec), Maybe Word64)
repaOuter pts = do
  let ne = U.length pts
  dArr <- R.computeUnboxedP (R.fromFunction (Z :. ne :. ne) (distanceAt pts)) :: IO (Array U DIM2 Double)
  rowMax <- R.foldP max (-1) dArr
  let mx = R.toUnboxed rowMax
  dm <- U.unsafeThaw (R.toUnboxed dArr)
  forM_ [0 .. ne - 1] $ \i -> MU.unsafeWrite dm (i * ne + i) (fromIntegral ne * U.unsafeIndex mx i)
  d <- U.unsafeFreeze dm
  v <- R.computeUnboxedP (R.fromFunction (Z :. ne) (originDistance pts)) :: IO (Array U DIM1 Double)
  return ((d, R.toUnboxed v), Nothing)

-- | Cell (i, j) of outer's matrix before its diagonal is set: the distance between points i and
-- j, and -1 on the diagonal (the running maximum's start, so a row's maximum is its off-diagonal one).
distanceAt :: Points -> DIM2 -> Double
distanceAt pts (Z :. i :. j)
  | i == j = -1
  | otherwise =
      let (xi, yi) = U.unsafeIndex pts i
          (xj, yj) = U.unsafeIndex pts j
          dx = fromIntegral (xi - xj) :: Double
          dy = fromIntegral (yi - yj) :: Double
      in sqrt (dx * dx + dy * dy)
{-# INLINE distanceAt #-}

-- | Element i of outer's vector: point i's distance from the origin.
originDistance :: Points -> DIM1 -> Double
originDistance pts (Z :. i) =
  let (x, y) = U.unsafeIndex pts i
      fx = fromIntegral x :: Double
      fy = fromIntegral y :: Double
  in sqrt (fx * fx + fy * fy)
{-# INLINE originDistance #-}

-- | foldP (+) 0 over the rows of D ⊙ v: Repa folds each row on one thread, left to right from 0,
-- which is exactly product.md's order (acc = acc + D[i][j]·v[j], j ascending).
repaProduct :: Vec -> Vec -> IO (Vec, Maybe Word64)
repaProduct d v = do
  let ne = U.length v
      dArr = R.fromUnboxed (Z :. ne :. ne) d :: Array U DIM2 Double
      vArr = R.fromUnboxed (Z :. ne) v :: Array U DIM1 Double
  r <- R.foldP (+) 0 (R.zipWith (*) dArr (R.extend (Any :. ne :. All) vArr))
  return (R.toUnboxed r, Nothing)
