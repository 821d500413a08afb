{-# LANGUAGE ScopedTypeVariables #-}
-- | Unit tests of the Cowichan kernels, the coordination kernels and chameneos (make test). Expected values are computed here or taken
-- from hand-made inputs, never copied from the specs' reference tables. The last line says
-- "N passed, M failed"; the exit status is 1 when any check failed.
module Tests (main) where

import Control.Concurrent (getNumCapabilities, setNumCapabilities)
import Control.DeepSeq (force)
import Control.Exception (ErrorCall, SomeException, evaluate, try)
import Control.Monad (forM_, when)
import Data.Bits (finiteBitSize, shiftL)
import Data.IORef (IORef, modifyIORef', newIORef, readIORef)
import Data.List (sort)
import Data.Word (Word32)
import System.Exit (exitFailure)
import qualified Data.Map.Strict as Map
import qualified Data.Vector.Unboxed as U

import Chameneos
import Coordination
import Cowichan
import CowichanRun
import Protocol (Metric (..))

data Tally = Tally { passed :: !Int, failed :: !Int }

type Check = String -> Bool -> IO ()

main :: IO ()
main = do
  tally <- newIORef (Tally 0 0)
  let check = record tally
  caps0 <- getNumCapabilities
  lcgTests check
  partitionTests check
  roundingTests check
  threshTests check
  winnowTests check
  outerProductTests check
  -- Repa's gang is sized from -N at its first use, so the repa model runs at the start-up
  -- capability count (make test runs this program at -N2 and -N3), over several W.
  modelTests check caps0 "repa"
  modelTests check caps0 "paper"
  -- The par model's sparks run on however many capabilities there are now.
  forM_ [1, 2, 3, 7] $ \caps -> do
    setNumCapabilities caps
    modelTests check caps "par"
  setNumCapabilities caps0
  -- the coordination kernels at 1 capability and at the start-up count (make test: 2 and 3)
  forM_ [1, caps0] $ \caps -> do
    setNumCapabilities caps
    coordinationTests check caps
    chameneosTests check caps
  setNumCapabilities caps0
  complementTests check
  Tally ok bad <- readIORef tally
  putStrLn (show ok ++ " passed, " ++ show bad ++ " failed")
  when (bad > 0) exitFailure

record :: IORef Tally -> Check
record tally name ok = do
  -- a check whose evaluation throws counts as failed
  r <- try (evaluate ok)
  case r of
    Right True -> modifyIORef' tally (\t -> t { passed = passed t + 1 })
    Right False -> failWith "false"
    Left (e :: SomeException) -> failWith (show e)
  where
    failWith why = do
      putStrLn ("FAIL " ++ name ++ ": " ++ why)
      modifyIORef' tally (\t -> t { failed = failed t + 1 })

-- ---------------------------------------------------------------- LCG and randmat

lcgTests :: Check -> IO ()
lcgTests check = do
  check "lcg: seed 0 gives 1013904223" (lcgStep 0 == 1013904223)
  check "lcg: seed 0 draw mod 100 is 23" (lcgStep 0 `rem` 100 == 23)
  check "lcg: seed 12345 gives 87628868" (lcgStep 12345 == 87628868)
  check "lcg: seed 12345 draw mod 1000 is 868" (lcgStep 12345 `rem` 1000 == 868)
  forM_ [0, 1, 12345, 2147483648, 4294967295 :: Integer] $ \s ->
    check ("lcg: wraps at 2^32 from " ++ show s)
      (toInteger (lcgStep (fromInteger s)) == (1664525 * s + 1013904223) `mod` 2 ^ (32 :: Int))
  check "randmat: seed 0, row 0 starts with the first draw" (U.head (seqRandmat 5 0) == 23)
  -- one generator per row, seeded seed + i (mod 2^32): row i is row 0 of the next seed
  forM_ [(7, 0), (5, 4294967294), (3, 12345)] $ \(n, seed :: Word32) ->
    forM_ [0 .. n - 1] $ \i ->
      check ("randmat: row " ++ show i ++ " of n=" ++ show n ++ " seed=" ++ show seed ++ " has its own generator")
        (U.slice (i * n) n (seqRandmat n seed) == U.take n (seqRandmat n (seed + fromIntegral i)))
  check "randmat: values below 100" (U.all (< 100) (seqRandmat 40 3))

-- ---------------------------------------------------------------- rule 2

partitionTests :: Check -> IO ()
partitionTests check = do
  check "partition: n=10 W=4 gives 2 2 3 3" (blockSizes 10 4 == [2, 2, 3, 3])
  check "partition: n=10000 W=32 gives 16 of 312 then 16 of 313"
    (blockSizes 10000 32 == replicate 16 312 ++ replicate 16 313)
  check "partition: n=2 W=3 starts with an empty block" (blockSizes 2 3 == [0, 1, 1] && rowBlocks 2 3 == [(0, 1), (1, 2)])
  forM_ [0 .. 40] $ \r -> forM_ [1 .. 12] $ \w -> do
    let hs = blockSizes r w
        bs = rowBlocks r w
    check ("partition: R=" ++ show r ++ " W=" ++ show w)
      (length hs == w && sum hs == r && and (zipWith (<=) hs (drop 1 hs)) && maximum hs - minimum hs <= 1
        -- the non-empty blocks, contiguous from row 0 to row R
        && length bs == min r w && all (\(lo, hi) -> hi > lo) bs
        && and (zipWith (\(_, hi) (lo, _) -> hi == lo) bs (drop 1 bs))
        && (null bs || (fst (head bs) == 0 && snd (last bs) == r)))

-- ---------------------------------------------------------------- quantisation, checksums

roundingTests :: Check -> IO ()
roundingTests check = do
  forM_ [(0.5, 1), (1.5, 2), (2.5, 3), (-0.5, -1), (-2.5, -3), (0.49999999999999994, 0), (-0.49999999999999994, 0)
        , (1234567.5, 1234568), (-1234567.5, -1234568), (1234567.4999999998, 1234567), (0, 0), (-0.0, 0)
        , (4503599627370497, 4503599627370497), (-4503599627370497, -4503599627370497)
        , (9007199254740993, 9007199254740992) ] $ \(y, q) ->
    check ("round half away from zero: " ++ show y) (roundHalfAway y == q)
  check "Int is 64 bits (roundHalfAway floors to Int)" (finiteBitSize (0 :: Int) == 64)
  check "q(1) = 10^6" (quantise 1 == 1000000)
  check "q(-1) = -10^6" (quantise (-1) == -1000000)
  check "checksum of bytes" (checksumBytes (U.fromList [1, 2, 3]) == 1 + 4 + 9)
  check "checksum of doubles: a negative q wraps" (checksumDoubles (U.fromList [-1]) == negate 1000000)
  check "checksum of doubles wraps mod 2^64"
    (checksumDoubles (U.fromList [0, 0, 9.2e12]) == fromInteger ((3 * 9200000000000000000) `mod` 2 ^ (64 :: Int)))
  check "checksum of points: [i0, j0, i1, j1]" (checksumPoints (U.fromList [(1, 2), (3, 4)]) == 1 * 1 + 2 * 2 + 3 * 3 + 4 * 4)

-- ---------------------------------------------------------------- thresh

-- | The threshold by its definition: the largest v with #{cells ≥ v} > count, else 0.
threshByDefinition :: Int -> Int -> Matrix -> Int
threshByDefinition n p m =
  case [v | v <- [99, 98 .. 0], U.length (U.filter ((>= v) . fromIntegral) m) > count] of
    (v : _) -> v
    [] -> 0
  where count = n * n * p `div` 100

threshTests :: Check -> IO ()
threshTests check = do
  let m = U.fromList [5, 5, 3, 1]
  -- count = floor(4p/100): 0, 1, 2, 3, 4
  forM_ [(0, 5, 2), (25, 5, 2), (50, 3, 3), (75, 1, 4), (100, 0, 4)] $ \(p, t, kept) ->
    forM_ ["seq", "par", "repa", "paper"] $ \model -> do
      ((t', mask), _) <- kThresh (kernelsFor model 2) 2 p m
      check ("thresh tie rule " ++ model ++ " p=" ++ show p)
        (t' == t && U.sum (U.map fromIntegral mask) == (kept :: Int) && mask == U.map (\x -> if fromIntegral x >= t then 1 else 0) m)
  -- a whole bin is kept even when it overshoots count by far
  let ties = U.fromList (replicate 8 9 ++ [2])
  check "thresh: a tied bin is taken whole" (fst (seqThresh 3 10 ties) == 9)
  forM_ [(n, seed, p) | n <- [1, 3, 10, 31], seed <- [0, 77], p <- [0, 1, 5, 50, 99, 100]] $ \(n, seed, p) -> do
    let mat = seqRandmat n seed
        (t, mask) = seqThresh n p mat
        count = n * n * p `div` 100
        kept = U.sum (U.map fromIntegral mask) :: Int
    check ("thresh by definition n=" ++ show n ++ " seed=" ++ show seed ++ " p=" ++ show p)
      (t == threshByDefinition n p mat && (p == 100 || kept >= count + 1))

-- ---------------------------------------------------------------- winnow

winnowTests :: Check -> IO ()
winnowTests check = do
  -- 3×3, every cell masked but the centre; sorted by (value, i, j):
  -- (1,1,2) (3,0,1) (3,1,0) (3,2,1) (3,2,2) (7,0,0) (7,0,2) (7,2,0); K = 8, nelts 3, chunk 2
  let m = U.fromList [7, 3, 7, 3, 9, 1, 7, 3, 3]
      mask = U.fromList [1, 1, 1, 1, 0, 1, 1, 1, 1]
  forM_ ["seq", "par", "repa", "paper"] $ \model -> forM_ [1, 2, 3, 7] $ \w -> do
    ((k, pts), _) <- kWinnow (kernelsFor model w) 3 3 m mask
    check ("winnow hand-made " ++ model ++ " W=" ++ show w) (k == 8 && U.toList pts == [(1, 2), (1, 0), (2, 2)])
    ((k8, pts8), _) <- kWinnow (kernelsFor model w) 3 8 m mask
    check ("winnow hand-made nelts=K " ++ model ++ " W=" ++ show w)
      (k8 == 8 && U.toList pts8 == [(1, 2), (0, 1), (1, 0), (2, 1), (2, 2), (0, 0), (0, 2), (2, 0)])
    r <- try (kWinnow (kernelsFor model w) 3 9 m mask >>= evaluate . force . fst)
    check ("winnow: fewer candidates than nelts fails " ++ model ++ " W=" ++ show w)
      (either (\(_ :: ErrorCall) -> True) (const False) r)
  -- the key order is the lexicographic (value, i, j) order
  forM_ [(n, seed) | n <- [1, 4, 13, 30], seed <- [0, 5, 4294967295]] $ \(n, seed) -> do
    let mat = seqRandmat n seed
        triples = sort [(fromIntegral (mat U.! k) :: Int, k `div` n, k `mod` n) | k <- [0 .. n * n - 1], odd (k * 7 + k `div` 3)]
        keys = U.fromList [keyOf (fromIntegral v) (i * n + j) | (v, i, j) <- reverse triples]
        sorted = sortKeys keys
    check ("winnow sort n=" ++ show n ++ " seed=" ++ show seed)
      (map (decodeKey n) (U.toList sorted) == [(i, j) | (_, i, j) <- triples])
    let (a, b) = U.partition even keys
    check ("winnow merge n=" ++ show n ++ " seed=" ++ show seed) (mergeKeys (sortKeys a) (sortKeys b) == sorted)
  check "winnow key: value above the index" (keyOf 1 0 > keyOf 0 (1 `shiftL` 39) && decodeKey 7 (keyOf 5 23) == (3, 2))

-- ---------------------------------------------------------------- outer, product

outerProductTests :: Check -> IO ()
outerProductTests check =
  forM_ ["seq", "par", "repa", "paper"] $ \model -> forM_ [1, 2, 3] $ \w -> do
    let ks = kernelsFor model w
        tag = model ++ " W=" ++ show w
    ((d, v), _) <- kOuter ks (U.fromList [(0, 0), (3, 4)])
    check ("outer hand-made " ++ tag) (U.toList d == [10, 5, 5, 10] && U.toList v == [0, 5])
    ((d1, v1), _) <- kOuter ks (U.fromList [(2, 0)])
    check ("outer nelts=1: the running maximum starts at -1 " ++ tag) (U.toList d1 == [-1] && U.toList v1 == [2])
    (r, _) <- kProduct ks d v
    check ("product hand-made " ++ tag) (U.toList r == [25, 50])
    -- ascending j: (1 + 1e16) rounds to 1e16, then - 1e16 gives 0 (other orders give 1)
    (r3, _) <- kProduct ks (U.fromList (concat (replicate 3 [1, 1e16, -1e16]))) (U.fromList [1, 1, 1])
    check ("product sums in ascending j " ++ tag) (U.toList r3 == [0, 0, 0])

-- ---------------------------------------------------------------- every model against seq

-- | Every stage of the model against the sequential kernels on the same input, for several n
-- (some below W), seeds, p and W.
modelTests :: Check -> Int -> String -> IO ()
modelTests check caps model = do
  forM_ [(n, seed, p) | n <- [1, 2, 3, 5, 17, 40], seed <- [0, 4294967295, 31337 :: Word32], p <- [0, 1, 37, 100]] $ \(n, seed, p) -> do
    let m = seqRandmat n seed
        (t, mask) = seqThresh n p m
        (k, _) = seqWinnow n n m mask
        nelts = min n k
        (_, pts) = seqWinnow n nelts m mask
        (d, v) = seqOuter pts
        r = seqProduct d v
    forM_ [1, 2, 3, 7] $ \w -> do
      let ks = kernelsFor model w
          tag = model ++ " N=" ++ show caps ++ " W=" ++ show w ++ " n=" ++ show n ++ " seed=" ++ show seed ++ " p=" ++ show p
      (m', _) <- kRandmat ks n seed
      check ("randmat " ++ tag) (m' == m)
      ((t', mask'), _) <- kThresh ks n p m
      check ("thresh " ++ tag) (t' == t && mask' == mask)
      ((k', pts'), _) <- kWinnow ks n nelts m mask
      check ("winnow " ++ tag) (k' == k && pts' == pts)
      ((d', v'), _) <- kOuter ks pts
      check ("outer " ++ tag) (d' == d && v' == v)
      (r', _) <- kProduct ks d v
      check ("product " ++ tag) (r' == r)
  -- the runner end to end: each benchmark's result string, and compute_ns where the model copies
  forM_ [(n, w) | n <- [3, 40], w <- [1, 3]] $ \(n, w) ->
    forM_ ["randmat", "thresh", "winnow", "outer", "product", "chain"] $ \bench -> do
      let m = seqRandmat n 99
          (k, _) = seqWinnow n n m (snd (seqThresh n 1 m))
          setup = Setup n 1 (min n k) 99 w
      want <- prepareCowichan bench (kernelsFor "seq" 1) setup >>= id
      got <- prepareCowichan bench (kernelsFor model w) setup >>= id
      let tag = bench ++ " " ++ model ++ " N=" ++ show caps ++ " W=" ++ show w ++ " n=" ++ show n
      check ("runner result " ++ tag) (oResult got == oResult want)
      let names = map fst (oMetrics got)
      check ("runner metrics " ++ tag)
        ((bench /= "chain" || all (`elem` names) ["stage_randmat_ns", "stage_thresh_ns", "stage_winnow_ns", "stage_outer_ns", "stage_product_ns"])
          && (model /= "par" || "compute_ns" `elem` names))

-- | The coordination benchmarks, every shape, against their closed forms: mutex n·m, prodcons
-- N = n·m items summing to N(N+1)/2, condition 2·n·m, threadring (N mod R) + 1. n = 1 and m = 0
-- included; the ring down to 2 entities.
coordinationTests :: Check -> Int -> IO ()
coordinationTests check caps = do
  let sizes = [(n, m) | n <- [1, 2, 3, 8], m <- [0, 1, 7, 100]]
      at n m = " n=" ++ show n ++ " m=" ++ show m ++ " caps=" ++ show caps
  forM_ ["stm-batched", "stm", "mvar"] $ \shape -> forM_ sizes $ \(n, m) -> do
    (_, r) <- mutexRun shape n m
    check ("mutex " ++ shape ++ at n m) (r == "count=" ++ show (n * m))
  forM_ ["stm-batched", "stm", "chan"] $ \shape -> forM_ sizes $ \(n, m) -> do
    (_, r) <- prodconsRun shape n m
    let total = n * m
    check ("prodcons " ++ shape ++ at n m)
      (r == "consumed=" ++ show total ++ " sum=" ++ show (total * (total + 1) `div` 2))
  forM_ sizes $ \(n, m) -> do
    (_, r) <- conditionRun "stm" n m
    check ("condition stm" ++ at n m) (r == "value=" ++ show (2 * n * m))
  forM_ ["mvar", "best-forkon"] $ \shape -> do
    forM_ [2, 3, 5, 503] $ \ring -> forM_ [0, 1, 2, 7, 1000] $ \t -> do
      (_, r) <- threadringRun shape ring t
      check ("threadring " ++ shape ++ " ring=" ++ show ring ++ " N=" ++ show t ++ " caps=" ++ show caps)
        (r == "id=" ++ show (t `mod` ring + 1))
    -- a hand-simulated ring: 3 entities, N = 4 goes 1 -> 2 -> 3 -> 1 -> 2, and 2 receives 0
    (_, r) <- threadringRun shape 3 4
    check ("threadring " ++ shape ++ ": N=4 on a ring of 3 ends at entity 2") (r == "id=2")
  -- best-forkon starts each entity from the one before: on a ring far longer than N the answer
  -- still comes (the last entity started hands N to the first), and N = R hops round 10^5
  -- entities end back at entity 1, so every link of the chain was made
  forM_ [(3, 100000), (100000, 100000)] $ \(t, ring) -> do
    (_, r) <- threadringRun "best-forkon" ring t
    check ("threadring best-forkon ring=" ++ show ring ++ " N=" ++ show t ++ " caps=" ++ show caps)
      (r == "id=" ++ show (t `mod` ring + 1))
  -- a hand-counted sum: two producers of 5 items put 1..10
  (_, r2) <- prodconsRun "stm" 2 5
  check "prodcons: items 1..10 sum to 55" (r2 == "consumed=10 sum=55")

-- ---------------------------------------------------------------- chameneos

-- | complement against the spec's table written out by hand, and the ten-creature list.
complementTests :: Check -> IO ()
complementTests check = do
  let table = [ (Blue, Blue, Blue), (Blue, Red, Yellow), (Blue, Yellow, Red)
              , (Red, Blue, Yellow), (Red, Red, Red), (Red, Yellow, Blue)
              , (Yellow, Blue, Red), (Yellow, Red, Blue), (Yellow, Yellow, Yellow) ]
  forM_ table $ \(a, b, c) -> check ("complement " ++ show a ++ " " ++ show b) (complement a b == c)
  check "colour numbers: blue 0, red 1, yellow 2" (map fromEnum [Blue, Red, Yellow] == [0, 1, 2])
  -- complement(a, b) = -(a + b) mod 3, so a meeting keeps the pair's colour sum mod 3
  check "complement is -(a+b) mod 3" (and [fromEnum (complement a b) == negate (fromEnum a + fromEnum b) `mod` 3 | a <- [minBound ..], b <- [minBound ..]])
  check "the ten-creature list" (tenColours == [Blue, Red, Yellow, Red, Yellow, Blue, Red, Yellow, Red, Blue])
  check "C=3 is game A, C=10 game B, C=13 wraps" (initialColours 3 == [Blue, Red, Yellow] && initialColours 10 == tenColours
    && initialColours 13 == tenColours ++ [Blue, Red, Yellow])

-- | Small games: the place counts M, the creatures 2M, nobody meets itself, every creature
-- reports, and the colour sum mod 3 is the initial one; with and without the start gate, the
-- creatures on one capability and spread over all. Then the runners' result strings and metric
-- names, and hand-worked games.
chameneosTests :: Check -> Int -> IO ()
chameneosTests check caps = do
  let initialSum c = sum (map fromEnum (initialColours c)) `mod` 3
  forM_ [(gate, spread, c, m) | gate <- [True, False], spread <- [True, False], c <- [2, 3, 4, 7, 10, 11, 70, 1000], m <- [0, 1, 2, 7, 100, 3000]] $
    \(gate, spread, c, m) -> do
      g <- playGame gate (if spread then (`mod` caps) else const 0) (initialColours c) m
      let rs = gReports g
          tag = " C=" ++ show c ++ " M=" ++ show m ++ " gate=" ++ show gate ++ " spread=" ++ show spread ++ " caps=" ++ show caps
      check ("chameneos meetings" ++ tag) (gMeetings g == m)
      check ("chameneos creature meetings = 2M" ++ tag) (length rs == c && sum (map rMeetings rs) == 2 * m && all ((>= 0) . rMeetings) rs)
      check ("chameneos no self meetings" ++ tag) (all ((== 0) . rSelf) rs)
      check ("chameneos colour sum mod 3" ++ tag) (sum (map (fromEnum . rColour) rs) `mod` 3 == initialSum c)
      let s = summarise g
      check ("chameneos summary" ++ tag)
        (sTotal s == 2 * m && sSelf s == 0 && sColourSumMod3 s == initialSum c
          && sMin s == minimum (map rMeetings rs) && sMax s == maximum (map rMeetings rs))
  -- two creatures meet each other every time: blue + red gives yellow, then yellow stays
  g2 <- playGame True (`mod` caps) (initialColours 2) 5
  check ("chameneos C=2 M=5: 5 meetings each, both yellow caps=" ++ show caps)
    (gReports g2 == replicate 2 (Report 5 0 Yellow))
  -- one meeting among three: two creatures met once, the third never; its colour is unchanged
  g3 <- playGame True (`mod` caps) (initialColours 3) 1
  let met = [r | r <- gReports g3, rMeetings r == 1]
      idle = [(col, r) | (col, r) <- zip (initialColours 3) (gReports g3), rMeetings r == 0]
  check ("chameneos C=3 M=1: one pair met, the third kept its colour caps=" ++ show caps)
    (length met == 2 && rColour (head met) == rColour (met !! 1)
      && case idle of [(col, r)] -> rColour r == col; _ -> False)
  -- an exact spread has std 0: four counts 2, 2, 2, 2 around 2M/C = 2
  let even' = summarise (Game 4 (replicate 4 (Report 2 0 Blue)))
      odd' = summarise (Game 2 [Report 0 0 Blue, Report 2 0 Blue, Report 2 0 Red])
  check "chameneos fairness: even spread has std 0" (sStd even' == 0 && sCv even' == 0)
  -- counts 0, 2, 2 around 4/3: variance (16/9 + 4/9 + 4/9) / 3 = 8/9
  check "chameneos fairness: population std around 2M/C" (abs (sStd odd' - sqrt (8 / 9)) < 1e-12 && abs (sCv odd' - sqrt (8 / 9) / (4 / 3)) < 1e-12)
  -- the runners
  forM_ [(c, m) | c <- [2, 3, 10, 70], m <- [1, 777]] $ \(c, m) -> do
    (_, r, ms) <- encoreRun c m
    let metrics = Map.fromList ms
        tag = " C=" ++ show c ++ " M=" ++ show m ++ " caps=" ++ show caps
    check ("chameneos encore result" ++ tag) (r == "meetings=" ++ show m ++ " creature_meetings=" ++ show (2 * m))
    check ("chameneos encore metric names" ++ tag)
      (Map.keys metrics == sort ["fairness_std", "cv", "min_meetings", "max_meetings", "self_meetings", "colour_sum_mod3", "throughput"])
    check ("chameneos encore self and colour metrics" ++ tag)
      (Map.lookup "self_meetings" metrics == Just (IntMetric 0)
        && Map.lookup "colour_sum_mod3" metrics == Just (IntMetric (toInteger (initialSum c))))
  forM_ [1, 2, 1000] $ \n -> do
    (_, r, ms) <- reduxRun n
    let metrics = Map.fromList ms
        tag = " n=" ++ show n ++ " caps=" ++ show caps
    check ("chameneos redux result" ++ tag)
      (r == "meetings3=" ++ show n ++ " creature_meetings3=" ++ show (2 * n) ++ " meetings10=" ++ show n ++ " creature_meetings10=" ++ show (2 * n))
    check ("chameneos redux metric names" ++ tag)
      (Map.keys metrics == sort ("self_meetings" : "throughput" :
         concat [[k ++ g | k <- ["fairness_std", "cv", "min_meetings", "max_meetings", "colour_sum_mod3"]] | g <- ["_3", "_10"]]))
    check ("chameneos redux self and colour metrics" ++ tag)
      (Map.lookup "self_meetings" metrics == Just (IntMetric 0)
        && Map.lookup "colour_sum_mod3_3" metrics == Just (IntMetric 0) && Map.lookup "colour_sum_mod3_10" metrics == Just (IntMetric 1))
