{-# LANGUAGE BangPatterns #-}
-- | chameneos (chameneos.md), model `mvar`, shape `rendezvous`: the SCOOP study's Haskell (the
-- Benchmarks Game's chameneos-redux), written anew. One lightweight thread per creature, started
-- with forkOn; the meeting place is one MVar holding either the meetings left (`Nobody q`) or
-- the waiting creature with its colour and its own wake-up MVar (`Somebody q id colour wake`).
-- A creature takes the place: with nobody there it leaves itself in it and blocks in takeMVar on
-- its wake-up MVar; with somebody there it puts back `Nobody (q-1)`, hands the waiting one its id
-- and colour through the wake-up MVar, and both take the complement. With no meeting left it puts
-- the place back untouched and reports. Waiting is takeMVar (also at the start gate), never
-- polling.
--
-- The paper's program (the SCOOP study's repository, benchmarks/concurrent/haskell/chameneos)
-- starts every creature of game g with `forkOnIO g`: all the creatures of one game share one
-- capability, so a hand-over never crosses capabilities. The same rule here:
-- variant=redux: game A (3 creatures) on capability 0 and game B (10 creatures) on capability 1,
-- both started before either is awaited, so they run concurrently (as the paper's Haskell did).
-- variant=encore: one game, so its C creatures all on capability 0; they play M meetings behind
-- a start gate (a latch): no creature sends its first request before the last of the C has
-- started, so no meeting forms before every creature is ready to send its first request.
--
-- Starting and releasing the creatures keeps the run queue short. Creature i starts creature
-- i+1 (forkOn) as its first action, and the gate is a relay: the last creature to start opens
-- creature 0's gate MVar, and each creature, once through its own, opens the next one's. GHC 9.0's
-- scheduler walks a capability's whole run queue each time it looks for work to push to an idle
-- capability (locked forkOn threads are walked but never moved), so a main thread forking all C
-- at once, or a gate waking all C at once (one readMVar), leaves C threads runnable on one
-- capability and costs O(C) per context switch, O(C^2) in all, with -N above 1 (measured at
-- -N2: C = 4000 took 15 times as long as with +RTS -qm, C = 70 000 minutes instead of 0.3 s).
module Chameneos
  ( Colour (..), complement, tenColours, initialColours
  , Report (..), Game (..), startGame, playGame
  , Summary (..), summarise
  , encoreRun, reduxRun
  , minCreatures, maxCreatures, maxMeetings
  ) where

import Control.Concurrent (forkOn)
import Control.Concurrent.MVar
import Control.Exception (SomeException, mask, throwIO, try)
import Control.Monad (forM, void, when)
import qualified Data.Vector as V
import Data.Word (Word64)
import GHC.Clock (getMonotonicTimeNSec)

import Protocol (Metric (..))

-- ---------------------------------------------------------------- colours

-- | blue = 0, red = 1, yellow = 2 (fromEnum).
data Colour = Blue | Red | Yellow
  deriving (Eq, Ord, Show, Enum, Bounded)

-- | The only way a colour changes: the same colour stays, two different ones give the third.
complement :: Colour -> Colour -> Colour
complement a b
  | a == b = a
  | otherwise = toEnum (3 - fromEnum a - fromEnum b)

-- | The standard ten-creature list.
tenColours :: [Colour]
tenColours = [Blue, Red, Yellow, Red, Yellow, Blue, Red, Yellow, Red, Blue]

-- | Creature i starts with tenColours !! (i mod 10).
initialColours :: Int -> [Colour]
initialColours c = take c (cycle tenColours)

-- ---------------------------------------------------------------- bounds (Main's table)

-- | variant=encore's C: at least 2 (one creature alone would wait for ever), at most 2^20
-- lightweight threads (the same bound as Go's goroutines).
minCreatures, maxCreatures :: Integer
minCreatures = 2
maxCreatures = 2 ^ (20 :: Int)

-- | M (and redux's n): 2M, the creatures' meetings summed (sTotal), stays within a 64-bit Int.
maxMeetings :: Integer
maxMeetings = toInteger (maxBound :: Int) `div` 2

-- ---------------------------------------------------------------- the meeting place

-- | What the second arrival hands the waiting creature: its id and its colour.
data Partner = Partner !Int !Colour

-- | The place: the meetings left, or the waiting creature (meetings left, id, colour, wake-up).
data Place = Nobody !Int | Somebody !Int !Int !Colour !(MVar Partner)

-- | What a refused creature reports: its own meeting count, its self-meetings, its final colour.
data Report = Report { rMeetings :: !Int, rSelf :: !Int, rColour :: !Colour }
  deriving (Eq, Show)

-- | One finished game: the meetings counted by the place and the creatures' reports (by id).
data Game = Game { gMeetings :: !Int, gReports :: [Report] }

-- | A creature: requests meetings until the place refuses it, counting its own meetings.
creature :: MVar Place -> Int -> Colour -> IO Report
creature place me col0 = do
  wake <- newEmptyMVar
  let go !col !count !self = do
        p <- takeMVar place
        case p of
          Nobody q
            | q <= 0 -> do
                putMVar place p
                return (Report count self col)
            | otherwise -> do
                putMVar place (Somebody q me col wake)
                Partner pid pcol <- takeMVar wake
                go (complement col pcol) (count + 1) (if pid == me then self + 1 else self)
          Somebody q wid wcol wwake -> do
            putMVar place $! Nobody (q - 1)
            putMVar wwake (Partner me col)
            go (complement col wcol) (count + 1) (if wid == me then self + 1 else self)
  go col0 0 (0 :: Int)

-- | Starts a game: the place with m meetings, then one thread per colour (creature i on
-- capability capOf i; creature 0 started here, each creature starting the next), behind the
-- start gate when asked. Returns the action that waits for every report (rethrowing a
-- creature's failure) and reads the place's count.
startGame :: Bool -> (Int -> Int) -> [Colour] -> Int -> IO (IO Game)
startGame gate capOf colours m = do
  place <- newMVar (Nobody m)
  let cs = V.fromList colours
      c = V.length cs
  dones <- V.replicateM c newEmptyMVar
  gates <- V.replicateM (if gate then c else 0) newEmptyMVar
  let start i = when (i < c) $ void $ mask $ \restore ->
        forkOn (capOf i) (try (restore (body i)) >>= putMVar (dones V.! i))
      body i = do
        start (i + 1)
        when gate $ do
          -- the last one to start opens the relay; each creature passes its own gate, then
          -- opens the next one's
          when (i == c - 1) (putMVar (gates V.! 0) ())
          takeMVar (gates V.! i)
          when (i + 1 < c) (putMVar (gates V.! (i + 1)) ())
        creature place i (cs V.! i)
  start 0
  return $ do
    reports <- forM (V.toList dones) $ \done -> takeMVar done >>= either (throwIO :: SomeException -> IO Report) return
    final <- readMVar place  -- every creature has reported: nobody touches the place now
    case final of
      Nobody q -> return (Game (m - q) reports)
      Somebody {} -> ioError (userError "chameneos: a creature was left waiting")

-- | Starts a game and waits for it.
playGame :: Bool -> (Int -> Int) -> [Colour] -> Int -> IO Game
playGame gate capOf colours m = startGame gate capOf colours m >>= id

-- ---------------------------------------------------------------- figures

-- | The figures of one game (chameneos.md, Extra metrics).
data Summary = Summary
  { sTotal, sMin, sMax, sSelf, sColourSumMod3 :: !Int, sStd, sCv :: !Double }

summarise :: Game -> Summary
summarise (Game meetings reports) = Summary
  { sTotal = sum counts, sMin = minimum counts, sMax = maximum counts
  , sSelf = sum (map rSelf reports)
  , sColourSumMod3 = sum (map (fromEnum . rColour) reports) `mod` 3
  , sStd = std, sCv = std / mean }  -- NaN (left out) only when no meeting happened
  where
    counts = map rMeetings reports
    c = fromIntegral (length reports) :: Double
    -- population standard deviation around the ideal mean 2M/C (M as counted by the place)
    mean = 2 * fromIntegral meetings / c
    std = sqrt (sum [(fromIntegral k - mean) ^ (2 :: Int) | k <- counts] / c)

-- ---------------------------------------------------------------- the two variants

-- | One encore iteration: C creatures on capability 0 (one game), M meetings, the start gate.
-- Time in ns, result, metrics.
encoreRun :: Int -> Int -> IO (Word64, String, [(String, Metric)])
encoreRun c m = do
  t0 <- getMonotonicTimeNSec
  g <- playGame True (const 0) (initialColours c) m
  t1 <- getMonotonicTimeNSec
  let s = summarise g
      ns = t1 - t0
  return
    ( ns
    , "meetings=" ++ show (gMeetings g) ++ " creature_meetings=" ++ show (sTotal s)
    , [ ("fairness_std", FloatMetric (sStd s)), ("cv", FloatMetric (sCv s))
      , ("min_meetings", int (sMin s)), ("max_meetings", int (sMax s))
      , ("self_meetings", int (sSelf s)), ("colour_sum_mod3", int (sColourSumMod3 s))
      , ("throughput", FloatMetric (fromIntegral (gMeetings g) / seconds ns)) ] )

-- | One redux iteration: game A (3 creatures) on capability 0 and game B (10) on capability 1,
-- n meetings each, both started before either is awaited.
reduxRun :: Int -> IO (Word64, String, [(String, Metric)])
reduxRun n = do
  t0 <- getMonotonicTimeNSec
  awaitA <- startGame False (const 0) (initialColours 3) n
  awaitB <- startGame False (const 1) (initialColours 10) n
  a <- awaitA
  b <- awaitB
  t1 <- getMonotonicTimeNSec
  let sa = summarise a
      sb = summarise b
      ns = t1 - t0
      perGame suffix s =
        [ ("fairness_std" ++ suffix, FloatMetric (sStd s)), ("cv" ++ suffix, FloatMetric (sCv s))
        , ("min_meetings" ++ suffix, int (sMin s)), ("max_meetings" ++ suffix, int (sMax s))
        , ("colour_sum_mod3" ++ suffix, int (sColourSumMod3 s)) ]
  return
    ( ns
    , "meetings3=" ++ show (gMeetings a) ++ " creature_meetings3=" ++ show (sTotal sa)
        ++ " meetings10=" ++ show (gMeetings b) ++ " creature_meetings10=" ++ show (sTotal sb)
    , [("self_meetings", int (sSelf sa + sSelf sb))] ++ perGame "_3" sa ++ perGame "_10" sb
        ++ [("throughput", FloatMetric (fromIntegral (gMeetings a + gMeetings b) / seconds ns))] )

int :: Int -> Metric
int = IntMetric . toInteger

seconds :: Word64 -> Double
seconds ns = fromIntegral ns / 1e9
