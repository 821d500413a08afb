{-# LANGUAGE BangPatterns #-}
-- | The Cowichan family's shared rules (chain.md) and the sequential kernels that every model
-- builds on: the LCG, rule 2's row partition, quantisation and checksums, and the per-row-range
-- kernels (randmat rows, a histogram of a range, a mask of a range, a gather, a sort and a merge of
-- keys, outer rows, product rows). Every kernel works on one contiguous row-major unboxed vector.
module Cowichan
  ( Matrix, Mask, Keys, Points, Vec
    -- * shared rules
  , lcgStep, blockSizes, rowBlocks
  , roundHalfAway, quantise
  , checksumBytes, checksumDoubles, checksumPoints
    -- * kernels on row ranges
  , randmatRows, histRange, mergeHists, chooseThreshold, maskRange
  , keyOf, decodeKey, gatherRange, sortKeys, mergeKeys, winnowChunk, pickPoints
  , outerRows, productRows
    -- * the whole kernels, sequentially
  , seqRandmat, seqThresh, seqWinnow, seqOuter, seqProduct
    -- * result strings
  , randmatResult, threshResult, winnowResult, outerResult, productResult
  ) where

import Control.Monad.ST (runST)
import Data.Bits ((.&.), (.|.), shiftL)
import Data.Int (Int64)
import Data.List (foldl')
import Data.Word (Word8, Word32, Word64)
import qualified Data.Vector.Algorithms.Intro as Intro
import qualified Data.Vector.Unboxed as U
import qualified Data.Vector.Unboxed.Mutable as MU

-- | An n×n matrix of values 0..99, row-major (randmat's output, thresh's and winnow's input).
type Matrix = U.Vector Word8
-- | An n×n 0/1 mask, row-major.
type Mask = U.Vector Word8
-- | Winnow candidates as sort keys: value above bit 40, flat index i·n + j below (n ≤ 10^6, so
-- n² < 2^40); ordering the keys is ordering (value, i, j) lexicographically.
type Keys = U.Vector Word64
-- | Winnow's points (row i, column j).
type Points = U.Vector (Int, Int)
-- | Doubles: outer's D (row-major) and v, product's r.
type Vec = U.Vector Double

-- ---------------------------------------------------------------- shared rules

-- | One LCG32 step; Word32 arithmetic wraps mod 2^32.
lcgStep :: Word32 -> Word32
lcgStep s = 1664525 * s + 1013904223
{-# INLINE lcgStep #-}

-- | Rule 2: the heights of the W static blocks of R rows, zeros included, smaller ones first.
blockSizes :: Int -> Int -> [Int]
blockSizes r w = go 0 0
  where
    go !start !k
      | k >= w = []
      | otherwise = let h = (r - start) `div` (w - k) in h : go (start + h) (k + 1)

-- | Rule 2's blocks as row ranges [lo, hi); a block of height 0 is left out (never started).
rowBlocks :: Int -> Int -> [(Int, Int)]
rowBlocks r w = [(lo, lo + h) | (lo, h) <- zip (scanl (+) 0 hs) hs, h > 0]
  where hs = blockSizes r w

-- | Round half away from zero to a signed 64-bit integer. Haskell's 'round' rounds half to
-- even, so this is written out: below 2^52 the fraction y - floor y is exact in binary64, and
-- from 2^52 on every double is an integer (fraction 0). floor goes to Int (64 bits on the
-- platforms GHC targets here), whose rewrite rule is one instruction; floor to Int64 goes
-- through Integer, about 30 times slower over outer's nelts² cells.
roundHalfAway :: Double -> Int64
roundHalfAway y
  | y >= 0 = fromIntegral (up y)
  | otherwise = negate (fromIntegral (up (negate y)))
  where
    up :: Double -> Int
    up z = let f = floor z in if z - fromIntegral f >= 0.5 then f + 1 else f

-- | q(x) of chain.md rule 5: x·10^6 is one binary64 multiplication, then rounded.
quantise :: Double -> Int64
quantise x = roundHalfAway (x * 1e6)

-- | Σ v[k]·(k+1) mod 2^64 over an integer array.
checksumBytes :: U.Vector Word8 -> Word64
checksumBytes = U.ifoldl' (\acc k x -> acc + fromIntegral x * fromIntegral (k + 1)) 0

-- | Σ q(v[k])·(k+1) mod 2^64; a negative q enters as its two's-complement pattern.
checksumDoubles :: Vec -> Word64
checksumDoubles = U.ifoldl' (\acc k x -> acc + fromIntegral (quantise x) * fromIntegral (k + 1)) 0

-- | The checksum of the flat array [i0, j0, i1, j1, ...].
checksumPoints :: Points -> Word64
checksumPoints = U.ifoldl' step 0
  where
    step acc k (i, j) =
      let k' = fromIntegral k :: Word64
      in acc + fromIntegral i * (2 * k' + 1) + fromIntegral j * (2 * k' + 2)

-- ---------------------------------------------------------------- randmat

-- | Rows [lo, hi) of randmat's matrix: one generator per row, seeded seed + i (mod 2^32), the draw
-- taken after stepping.
randmatRows :: Word32 -> Int -> Int -> Int -> Matrix
randmatRows seed n lo hi = U.create $ do
  mv <- MU.unsafeNew ((hi - lo) * n)
  let row !i
        | i >= hi = return ()
        | otherwise = do
            let base = (i - lo) * n
                cell !s !j
                  | j >= n = return ()
                  | otherwise = do
                      let !s' = lcgStep s
                      MU.unsafeWrite mv (base + j) (fromIntegral (s' `rem` 100))
                      cell s' (j + 1)
            cell (seed + fromIntegral i) 0
            row (i + 1)
  row lo
  return mv

seqRandmat :: Int -> Word32 -> Matrix
seqRandmat n seed = randmatRows seed n 0 n

-- ---------------------------------------------------------------- thresh

-- | The 100-bin histogram and the maximum of the flat cells [lo, hi).
histRange :: Matrix -> Int -> Int -> (U.Vector Int, Int)
histRange m lo hi = runST $ do
  hist <- MU.replicate 100 0
  let go !k !mx
        | k >= hi = return mx
        | otherwise = do
            let x = fromIntegral (U.unsafeIndex m k)
            MU.unsafeModify hist (+ 1) x
            go (k + 1) (max mx x)
  mx <- go lo 0
  h <- U.unsafeFreeze hist
  return (h, mx)

-- | Merges partial histograms and maxima (addition and max are order-free).
mergeHists :: [(U.Vector Int, Int)] -> (U.Vector Int, Int)
mergeHists parts =
  ( foldl' (U.zipWith (+)) (U.replicate 100 0) (map fst parts)
  , foldl' max 0 (map snd parts) )

-- | The threshold with thresh.md's tie rule: bins are taken whole from nmax down, and the scan
-- stops right after the first bin that pushes the running total above floor(n·n·p/100).
chooseThreshold :: Int -> Int -> U.Vector Int -> Int -> Int
chooseThreshold n p hist nmax = go 0 nmax nmax
  where
    count = n * n * p `div` 100
    go !prefix !t !v
      | v >= 0 && prefix <= count = go (prefix + hist U.! v) v (v - 1)
      | otherwise = t

-- | The mask of the flat cells [lo, hi): 1 where the cell is at least t.
maskRange :: Matrix -> Int -> Int -> Int -> Mask
maskRange m t lo hi = U.map (\x -> if fromIntegral x >= t then 1 else 0) (U.slice lo (hi - lo) m)

seqThresh :: Int -> Int -> Matrix -> (Int, Mask)
seqThresh n p m = (t, maskRange m t 0 (n * n))
  where
    (hist, nmax) = histRange m 0 (n * n)
    t = chooseThreshold n p hist nmax

-- ---------------------------------------------------------------- winnow

keyOf :: Word8 -> Int -> Word64
keyOf v k = (fromIntegral v `shiftL` 40) .|. fromIntegral k
{-# INLINE keyOf #-}

-- | (i, j) of a key, for a matrix of n columns.
decodeKey :: Int -> Word64 -> (Int, Int)
decodeKey n key = fromIntegral (key .&. 0xFFFFFFFFFF) `quotRem` n
{-# INLINE decodeKey #-}

-- | The keys of the masked cells among the flat cells [lo, hi), in index order: one pass counts
-- them, a second writes them into an array of exactly that size.
gatherRange :: Matrix -> Mask -> Int -> Int -> Keys
gatherRange m mask lo hi = runST $ do
  let count !k !c
        | k >= hi = c
        | otherwise = count (k + 1) (if U.unsafeIndex mask k /= 0 then c + 1 else c)
  out <- MU.unsafeNew (count lo 0)
  let fill !k !o
        | k >= hi = return ()
        | U.unsafeIndex mask k /= 0 = MU.unsafeWrite out o (keyOf (U.unsafeIndex m k) k) >> fill (k + 1) (o + 1)
        | otherwise = fill (k + 1) o
  fill lo 0
  U.unsafeFreeze out

-- | A full sort (introsort); the keys are distinct, so the order is unique. sortBy with an explicit
-- compare: vector-algorithms' plain `sort` is not specialised at this call site (about 14x slower).
sortKeys :: Keys -> Keys
sortKeys = U.modify (Intro.sortBy compare)

-- | Merges two ascending runs.
mergeKeys :: Keys -> Keys -> Keys
mergeKeys a b = U.create $ do
  let la = U.length a
      lb = U.length b
  out <- MU.unsafeNew (la + lb)
  let go !i !j !k
        | i < la && j < lb =
            let x = U.unsafeIndex a i
                y = U.unsafeIndex b j
            in if x <= y
                 then MU.unsafeWrite out k x >> go (i + 1) j (k + 1)
                 else MU.unsafeWrite out k y >> go i (j + 1) (k + 1)
        | i < la = U.copy (MU.slice k (la - i) out) (U.slice i (la - i) a)
        | j < lb = U.copy (MU.slice k (lb - j) out) (U.slice j (lb - j) b)
        | otherwise = return ()
  go 0 0 0
  return out

-- | nelts points evenly spaced through the sorted candidates, from the smallest upward.
-- Fewer candidates than nelts fails the run (winnow.md).
pickPoints :: Int -> Int -> Keys -> Points
pickPoints n nelts sorted = U.generate nelts (\e -> decodeKey n (U.unsafeIndex sorted (e * chunk)))
  where chunk = winnowChunk (U.length sorted) nelts

-- | floor(K / nelts); fewer candidates than nelts fails the run (winnow.md).
winnowChunk :: Int -> Int -> Int
winnowChunk k nelts
  | k < nelts = errorWithoutStackTrace ("winnow: " ++ show k ++ " candidates, fewer than nelts=" ++ show nelts)
  | otherwise = k `div` nelts

-- | (K, points).
seqWinnow :: Int -> Int -> Matrix -> Mask -> (Int, Points)
seqWinnow n nelts m mask = (U.length sorted, pickPoints n nelts sorted)
  where sorted = sortKeys (gatherRange m mask 0 (n * n))

-- ---------------------------------------------------------------- outer

-- | Rows [lo, hi) of D (row-major, nelts columns) and v[lo..hi). Integer differences converted to
-- double; the diagonal is nelts times the row's largest off-diagonal distance (running max from -1).
outerRows :: Points -> Int -> Int -> (Vec, Vec)
outerRows pts lo hi = runST $ do
  let ne = U.length pts
  d <- MU.unsafeNew ((hi - lo) * ne)
  v <- MU.unsafeNew (hi - lo)
  let row !i
        | i >= hi = return ()
        | otherwise = do
            let (xi, yi) = U.unsafeIndex pts i
                base = (i - lo) * ne
                cell !j !m
                  | j >= ne = return m
                  | j == i = cell (j + 1) m
                  | otherwise = do
                      let (xj, yj) = U.unsafeIndex pts j
                          dx = fromIntegral (xi - xj) :: Double
                          dy = fromIntegral (yi - yj) :: Double
                          !dist = sqrt (dx * dx + dy * dy)
                      MU.unsafeWrite d (base + j) dist
                      cell (j + 1) (max m dist)
            m <- cell 0 (-1)
            MU.unsafeWrite d (base + i) (fromIntegral ne * m)
            let fx = fromIntegral xi :: Double
                fy = fromIntegral yi :: Double
            MU.unsafeWrite v (i - lo) (sqrt (fx * fx + fy * fy))
            row (i + 1)
  row lo
  dv <- U.unsafeFreeze d
  vv <- U.unsafeFreeze v
  return (dv, vv)

seqOuter :: Points -> (Vec, Vec)
seqOuter pts = outerRows pts 0 (U.length pts)

-- ---------------------------------------------------------------- product

-- | r[lo..hi): each row summed in strictly ascending j, one rounding per product and per sum
-- (GHC neither contracts to FMA nor reassociates).
productRows :: Vec -> Vec -> Int -> Int -> Vec
productRows d v lo hi = U.generate (hi - lo) $ \r ->
  let base = (lo + r) * ne
      go !acc !j
        | j >= ne = acc
        | otherwise = go (acc + U.unsafeIndex d (base + j) * U.unsafeIndex v j) (j + 1)
  in go 0 0
  where ne = U.length v

seqProduct :: Vec -> Vec -> Vec
seqProduct d v = productRows d v 0 (U.length v)

-- ---------------------------------------------------------------- result strings (untimed)

randmatResult :: Matrix -> String
randmatResult m = "checksum=" ++ show (checksumBytes m)

threshResult :: Int -> Mask -> String
threshResult t mask =
  "threshold=" ++ show t ++ " kept=" ++ show (U.foldl' (\a x -> a + fromIntegral x) (0 :: Int) mask)
    ++ " checksum=" ++ show (checksumBytes mask)

winnowResult :: Int -> Points -> String
winnowResult k pts = "candidates=" ++ show k ++ " checksum=" ++ show (checksumPoints pts)

outerResult :: Vec -> Vec -> String
outerResult d v = "matrix=" ++ show (checksumDoubles d) ++ " vector=" ++ show (checksumDoubles v)

productResult :: Vec -> String
productResult r = "checksum=" ++ show (checksumDoubles r)
