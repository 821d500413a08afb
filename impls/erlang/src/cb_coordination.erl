%% The SCOOP/Qs paper's coordination workloads on Erlang processes (mutex.md, prodcons.md,
%% condition.md, threadring.md), each in the spec's Erlang shape. Every kernel is called in a
%% process that does not trap exits; it links to what it spawns (spawn_link), so a crash anywhere
%% ends the run. Each returns {Ns, Result, Metrics} with the timer around the kernel only.
%% Waiting is always a blocking `receive`, never a poll.
-module(cb_coordination).
-export([mutex/2, prodcons/2, condition/2, threadring/2]).

-define(U64, 16#FFFFFFFFFFFFFFFF).

now_ns() -> erlang:monotonic_time(nanosecond).

%% ------------------------------------------------------------------ mutex

%% shape `counter`: a counter process owns c and receives one `ping` per increment, sent
%% fire-and-forget by n worker processes (m each); its mailbox serialises the increments, one
%% message handled at a time. It reports to the parent after the n*m-th ping, so the value it
%% reports is read after every increment has been applied.
mutex(N, M) ->
    T0 = now_ns(),
    Parent = self(),
    Counter = spawn_link(fun() -> counter(0, N * M, Parent) end),
    [spawn_link(fun() -> pinger(Counter, M) end) || _ <- lists:seq(1, N)],
    Count = receive {count, Counter, C} -> C end,
    T1 = now_ns(),
    {T1 - T0, "count=" ++ integer_to_list(Count), []}.

counter(C, Total, Parent) when C =:= Total -> Parent ! {count, self(), C};
counter(C, Total, Parent) ->
    receive ping -> counter(C + 1, Total, Parent) end.

pinger(_Counter, 0) -> ok;
pinger(Counter, K) ->
    Counter ! ping,
    pinger(Counter, K - 1).

%% ------------------------------------------------------------------ prodcons

%% shape `queue`: a queue process keeps a list of pending values and a list of pending consumer
%% requests, and pairs them up (one of the two is always empty; the order is irrelevant, so both
%% are LIFO lists). Producers send {put, V} fire-and-forget; consumers send {fetch, self()} and
%% block in `receive` for the item. All 2n processes are started before main waits for any;
%% main joins all of them (each sends one message when done), then stops the queue.
prodcons(N, M) ->
    T0 = now_ns(),
    Parent = self(),
    Queue = spawn_link(fun() -> queue_loop([], []) end),
    [spawn_link(fun() -> consumer(Queue, M, 0, 0, Parent) end) || _ <- lists:seq(1, N)],
    [spawn_link(fun() -> producer(Queue, P * M + 1, P * M + M, Parent) end)
     || P <- lists:seq(0, N - 1)],
    {Consumed, Sum} = join_prodcons(2 * N, 0, 0),
    Queue ! stop,
    T1 = now_ns(),
    Result = io_lib:format("consumed=~b sum=~b", [Consumed, Sum band ?U64]),
    {T1 - T0, lists:flatten(Result), []}.

queue_loop(Items, Waiters) ->
    receive
        {put, V} ->
            case Waiters of
                [W | Ws] -> W ! {item, V}, queue_loop(Items, Ws);
                [] -> queue_loop([V | Items], Waiters)
            end;
        {fetch, Pid} ->
            case Items of
                [V | Vs] -> Pid ! {item, V}, queue_loop(Vs, Waiters);
                [] -> queue_loop(Items, [Pid | Waiters])
            end;
        stop -> ok
    end.

producer(_Queue, K, Last, Parent) when K > Last -> Parent ! produced;
producer(Queue, K, Last, Parent) ->
    Queue ! {put, K},
    producer(Queue, K + 1, Last, Parent).

%% The sum is the consumer's own u64: masked once at the end (the same value modulo 2^64).
consumer(_Queue, 0, Cnt, Sum, Parent) -> Parent ! {consumed, Cnt, Sum band ?U64};
consumer(Queue, K, Cnt, Sum, Parent) ->
    Queue ! {fetch, self()},
    receive {item, V} -> consumer(Queue, K - 1, Cnt + 1, Sum + V, Parent) end.

join_prodcons(0, Cnt, Sum) -> {Cnt, Sum};
join_prodcons(K, Cnt, Sum) ->
    receive
        produced -> join_prodcons(K - 1, Cnt, Sum);
        {consumed, C, S} -> join_prodcons(K - 1, Cnt + C, (Sum + S) band ?U64)
    end.

%% ------------------------------------------------------------------ condition

%% shape `coordinator`: a coordinator process owns x and two FIFO queues of waiting requesters,
%% one per parity. A worker of parity f sends {F, self()} (F = even | odd: the parity x must
%% have), blocks until {resume, X}, then increments itself and sends {set, X + 1}; while a grant
%% is out the coordinator grants nothing else, so the test and the increment are one atomic step.
%% After a set it resumes the oldest requester of the parity x now has (no wasted wake-up).
%% Three messages per increment. A worker sends `finished` after its m increments; after 2n of
%% them the coordinator reports x to main.
condition(N, M) ->
    T0 = now_ns(),
    Parent = self(),
    Coord = spawn_link(fun() ->
                               coordinator(0, false, queue:new(), queue:new(), 2 * N, Parent)
                       end),
    [spawn_link(fun() -> parity_worker(Coord, parity(W rem 2), M) end)
     || W <- lists:seq(0, 2 * N - 1)],
    Value = receive {value, Coord, X} -> X end,
    T1 = now_ns(),
    {T1 - T0, "value=" ++ integer_to_list(Value), []}.

parity(0) -> even;
parity(1) -> odd.

parity_worker(Coord, _F, 0) -> Coord ! finished;
parity_worker(Coord, F, K) ->
    Coord ! {F, self()},
    receive {resume, X} -> Coord ! {set, X + 1} end,
    parity_worker(Coord, F, K - 1).

%% Busy: a grant is out. Invariant: when not busy, nobody of x's parity is queued (a request of
%% x's parity is granted at once, and every set grants to a queued one if there is one).
coordinator(X, _Busy, _Even, _Odd, 0, Parent) -> Parent ! {value, self(), X};
coordinator(X, Busy, Even, Odd, Left, Parent) ->
    receive
        {F, Pid} when F =:= even; F =:= odd ->
            case not Busy andalso parity(X rem 2) =:= F of
                true ->
                    Pid ! {resume, X},
                    coordinator(X, true, Even, Odd, Left, Parent);
                false when F =:= even ->
                    coordinator(X, Busy, queue:in(Pid, Even), Odd, Left, Parent);
                false ->
                    coordinator(X, Busy, Even, queue:in(Pid, Odd), Left, Parent)
            end;
        {set, X1} ->
            case X1 rem 2 of
                0 -> grant(X1, queue:out(Even), fun(Q) -> {Q, Odd} end, Left, Parent);
                1 -> grant(X1, queue:out(Odd), fun(Q) -> {Even, Q} end, Left, Parent)
            end;
        finished ->
            coordinator(X, Busy, Even, Odd, Left - 1, Parent)
    end.

grant(X, {{value, Pid}, Rest}, Queues, Left, Parent) ->
    Pid ! {resume, X},
    {Even, Odd} = Queues(Rest),
    coordinator(X, true, Even, Odd, Left, Parent);
grant(X, {empty, Rest}, Queues, Left, Parent) ->
    {Even, Odd} = Queues(Rest),
    coordinator(X, false, Even, Odd, Left, Parent).

%% ------------------------------------------------------------------ threadring

%% shape `ring`: R processes with ids 1..R, each holding its successor's pid (R -> 1); a hop is
%% a send followed by the successor's `receive`. Process 1 is spawned first and told its
%% successor last, so the ring closes. The token value N goes to process 1; whoever receives 0
%% reports its id. Untimed afterwards: a `stop` goes once round the ring (each process forwards
%% it and ends) and process R tells main, so no process of this iteration outlives it.
threadring(N, R) ->
    T0 = now_ns(),
    Parent = self(),
    First = spawn_link(fun() -> receive {next, Next} -> ring_member(1, Next, false, Parent) end end),
    Second = lists:foldl(fun(Id, Next) ->
                                 spawn_link(fun() -> ring_member(Id, Next, Id =:= R, Parent) end)
                         end, First, lists:seq(R, 2, -1)),
    First ! {next, Second},
    First ! N,
    Id = receive {id, I} -> I end,
    T1 = now_ns(),
    First ! stop,
    receive ring_stopped -> ok end,
    {T1 - T0, "id=" ++ integer_to_list(Id), []}.

%% Last: this is process R, whose successor (process 1) has already ended when `stop` comes.
ring_member(Id, Next, Last, Parent) ->
    receive
        0 ->
            Parent ! {id, Id},
            ring_member(Id, Next, Last, Parent);
        T when is_integer(T) ->
            Next ! T - 1,
            ring_member(Id, Next, Last, Parent);
        stop when Last -> Parent ! ring_stopped;
        stop -> Next ! stop
    end.
