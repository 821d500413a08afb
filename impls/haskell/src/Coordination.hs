{-# LANGUAGE BangPatterns #-}
-- | The coordination benchmarks (mutex, prodcons, condition, threadring) under the two Haskell
-- models of the paper's language: `stm` (Control.Concurrent.STM, TVars and TQueues) and `mvar`
-- (MVars and the MVar-based Chan). Every concurrent entity is a forkIO thread; waiting is
-- blocking (takeMVar, STM retry), never polling. Each function runs one timed iteration and
-- returns its time and its result string; creating and joining the entities is inside the timer.
module Coordination
  ( coordination
  , mutexRun, prodconsRun, conditionRun, threadringRun
  ) where

import Control.Concurrent (ThreadId, forkFinally, forkIO, forkOn, killThread, myThreadId, threadCapability)
import Control.Concurrent.Chan (newChan, readChan, writeChan)
import Control.Concurrent.MVar
import Control.Concurrent.STM
import Control.Exception (SomeException, throwIO)
import Control.Monad (forM, forM_, replicateM, replicateM_)
import Data.Word (Word64)
import GHC.Clock (getMonotonicTimeNSec)

-- | One iteration of a coordination benchmark: benchmark, shape, its count option (n, or ring
-- for threadring) and --param; the time in ns and the result string.
coordination :: String -> String -> Int -> Int -> IO (Word64, String)
coordination "mutex" shape n m = mutexRun shape n m
coordination "prodcons" shape n m = prodconsRun shape n m
coordination "condition" shape n m = conditionRun shape n m
coordination "threadring" shape ring t = threadringRun shape ring t
coordination b _ _ _ = ioError (userError ("not a coordination benchmark: " ++ b))

-- | Starts one thread per action; the returned join waits for all of them and rethrows the
-- first failure (a worker that died must not leave a wrong count behind silently).
spawnAll :: [IO ()] -> IO (IO ())
spawnAll acts = do
  dones <- forM acts $ \act -> do
    done <- newEmptyMVar
    _ <- forkFinally act (putMVar done)
    return done
  return $ forM_ dones $ \done -> takeMVar done >>= either (throwIO :: SomeException -> IO ()) return

-- | Times an action with the monotonic clock; the result string is forced before the stop.
timed :: IO String -> IO (Word64, String)
timed act = do
  t0 <- getMonotonicTimeNSec
  s <- act
  t1 <- length s `seq` getMonotonicTimeNSec
  return (t1 - t0, s)

-- ---------------------------------------------------------------- mutex

-- | n workers, m increments each of one shared counter.
--   stm-batched: the stored program, one transaction of m increments per worker (replicateM_
--   inside atomically). stm: one atomically per increment. mvar: modifyMVar_ per increment.
mutexRun :: String -> Int -> Int -> IO (Word64, String)
mutexRun shape n m = timed $ case shape of
  "stm-batched" -> do
    c <- newTVarIO (0 :: Int)
    join <- spawnAll (replicate n (atomically (replicateM_ m (modifyTVar' c (+ 1)))))
    join
    count <$> readTVarIO c
  "stm" -> do
    c <- newTVarIO (0 :: Int)
    join <- spawnAll (replicate n (replicateM_ m (atomically (modifyTVar' c (+ 1)))))
    join
    count <$> readTVarIO c
  "mvar" -> do
    c <- newMVar (0 :: Int)
    join <- spawnAll (replicate n (replicateM_ m (modifyMVar_ c (\x -> return $! x + 1))))
    join
    count <$> readMVar c
  _ -> unknown "mutex" shape
  where count v = "count=" ++ show v

-- ---------------------------------------------------------------- prodcons

-- | n producers (producer p puts p*m+1 .. p*m+m) and n consumers (m takes each) on one unbounded
-- queue. stm-batched: the stored program, all m puts (takes) of a worker in one atomically, so a
-- consumer's transaction retries until m items are there. stm: a TQueue, one atomically per put
-- and per take (readTQueue retries while empty). chan: Control.Concurrent.Chan (MVar-based).
prodconsRun :: String -> Int -> Int -> IO (Word64, String)
prodconsRun shape n m = timed $ do
  (put, takeOne, takeBatch) <- case shape of
    "stm-batched" -> do
      q <- newTQueueIO
      return (\vs -> atomically (mapM_ (writeTQueue q) vs), Nothing, Just (atomically (replicateM m (readTQueue q))))
    "stm" -> do
      q <- newTQueueIO
      return (mapM_ (atomically . writeTQueue q), Just (atomically (readTQueue q)), Nothing)
    "chan" -> do
      q <- newChan
      return (mapM_ (writeChan q), Just (readChan q), Nothing)
    _ -> unknown "prodcons" shape
  sums <- forM [1 .. n] (const (newEmptyMVar :: IO (MVar (Word64, Word64))))
  let consumer out = case (takeOne, takeBatch) of
        (Just tk, _) -> loop tk m 0 0 >>= putMVar out
        (_, Just batch) -> batch >>= \vs -> putMVar out (fromIntegral (length vs), sum vs)
        _ -> return ()
      loop _ 0 !cnt !s = return (cnt, s)
      loop tk k !cnt !s = tk >>= \v -> loop tk (k - 1 :: Int) (cnt + 1) (s + v)
      producer p = put [fromIntegral (p * m + k + 1) | k <- [0 .. m - 1]]
  -- all 2n entities start before the kernel waits for any; consumers first
  join <- spawnAll (map consumer sums ++ map producer [0 .. n - 1])
  join
  parts <- mapM takeMVar sums
  let consumed = sum (map fst parts)
      total = sum (map snd parts)
  return ("consumed=" ++ show consumed ++ " sum=" ++ show total)

-- ---------------------------------------------------------------- condition

-- | 2n workers, worker w of parity w mod 2, each m times: wait until x mod 2 == parity, then
-- x = x + 1, in one transaction (check retries; every change of x wakes all blocked ones).
conditionRun :: String -> Int -> Int -> IO (Word64, String)
conditionRun shape n m = timed $ case shape of
  "stm" -> do
    x <- newTVarIO (0 :: Int)
    let worker f = replicateM_ m $ atomically $ do
          v <- readTVar x
          check (v `mod` 2 == f)
          writeTVar x $! v + 1
    join <- spawnAll [worker (w `mod` 2) | w <- [0 .. 2 * n - 1]]
    join
    (\v -> "value=" ++ show v) <$> readTVarIO x
  _ -> unknown "condition" shape

-- ---------------------------------------------------------------- threadring

-- | mvar, the paper's Haskell (the Benchmarks Game program): R forkIO threads, each blocked in
-- takeMVar on its own MVar; a hop puts t-1 into the successor's MVar. The one that receives 0
-- reports its id. The clock stops at the report; the other threads, still blocked, are killed
-- untimed.
--
-- best-forkon, the same ring kept on one capability (see threadringOneCapability).
threadringRun :: String -> Int -> Int -> IO (Word64, String)
threadringRun shape ring t = case shape of
  "best-forkon" -> threadringOneCapability ring t
  "mvar" -> do
    report <- newEmptyMVar
    t0 <- getMonotonicTimeNSec
    boxes <- replicateM ring newEmptyMVar
    let links = zip3 [1 :: Int ..] boxes (tail boxes ++ [head boxes])
        node k mine next = do
          v <- takeMVar mine
          if v == (0 :: Int) then putMVar report k else putMVar next (v - 1) >> node k mine next
    tids <- forM links $ \(k, mine, next) -> forkIO (node k mine next)
    putMVar (head boxes) t
    winner <- takeMVar report
    t1 <- getMonotonicTimeNSec
    stopAll tids
    return (t1 - t0, "id=" ++ show winner)
  _ -> unknown "threadring" shape

-- | Shape best-forkon: the mvar ring with every hand-off on one capability. All R threads are
-- started with forkOn on the capability the kernel runs on, whatever -N is (only the token holder
-- can run, so the others would only add wake-ups across capabilities). A putMVar into the
-- successor's MVar hands it the value and puts it on this capability's run queue; the sender
-- then blocks in its own takeMVar and the scheduler runs the successor next: no OS thread is
-- woken and no thread migrates. Tokens are passed evaluated ($!).
--
-- Entity k starts entity k+1 (forkOn) as its first action, creating its MVar, so the run queue
-- stays one or two threads long (GHC 9.0 walks a capability's whole run queue at each schedule
-- while another capability is idle, so R threads forked at once by the kernel would cost O(R)
-- per switch until each had run; see Chameneos.hs). Entity R, the last one started, links back to entity 1 and hands it N, so the
-- whole ring exists before the first hop. Teardown, untimed: a stop value (-1) goes once round
-- the ring, each entity forwarding it and ending; entity R signals the kernel instead.
threadringOneCapability :: Int -> Int -> IO (Word64, String)
threadringOneCapability ring t = do
  (cap, _) <- myThreadId >>= threadCapability
  first <- newEmptyMVar
  report <- newEmptyMVar
  done <- newEmptyMVar
  let stop = -1 :: Int
      start !k mine
        | k == ring = putMVar first t >> hop k mine first
        | otherwise = do
            next <- newEmptyMVar
            _ <- forkOn cap (start (k + 1) next)
            hop k mine next
      hop !k mine next = do
        v <- takeMVar mine
        if v > 0 then (putMVar next $! v - 1) >> hop k mine next
        else if v == 0 then putMVar report k >> hop k mine next
        else if k == ring then putMVar done ()
        else putMVar next v
  t0 <- getMonotonicTimeNSec
  _ <- forkOn cap (start 1 first)
  winner <- takeMVar report
  t1 <- getMonotonicTimeNSec
  putMVar first stop
  takeMVar done
  return (t1 - t0, "id=" ++ show (winner :: Int))

-- | Untimed teardown: every ring thread still blocked is killed (the winner has already returned;
-- killing a finished thread does nothing).
stopAll :: [ThreadId] -> IO ()
stopAll = mapM_ killThread

unknown :: String -> String -> IO a
unknown b s = ioError (userError ("unknown shape " ++ s ++ " for " ++ b))
