%% philosophers (docs/benchmarks/philosophers.md) on Erlang processes: n philosophers round a table
%% of n forks; philosopher I (0..n-1) eats m times with fork I (left) and fork (I+1) mod n (right),
%% holding both. Called, as the other kernels, in a process that does not trap exits and links to
%% what it spawns; returns {Ns, Result, Metrics} with the timer around the kernel only.
%%
%% shape `ordered`: one process per fork owns its holder, its use and overlap counts and a FIFO of
%% waiting philosophers. A philosopher asks the lower-numbered of its forks first ({take, self()}) and
%% blocks in `receive` until that fork grants itself, then does the same with the other one, so no
%% cycle of waiters can form (philosopher n-1 starts with fork 0). Holding both, it eats (its own
%% meal counter) and hands both back with {release, self()}, fire-and-forget; the fork counts the use
%% as its holder gives it back, and grants itself to the oldest waiter. Waiting is always a blocking
%% `receive`, never a poll; no process stands over the whole table.
-module(cb_philosophers).
-export([ordered/2, start_fork/0, fork_counts/1]).

now_ns() -> erlang:monotonic_time(nanosecond).

ordered(N, M) ->
    T0 = now_ns(),
    Parent = self(),
    Forks = list_to_tuple([start_fork() || _ <- lists:seq(1, N)]),
    [begin
         Left = element(I + 1, Forks),
         Right = element((I + 1) rem N + 1, Forks),
         {First, Second} = case (I + 1) rem N > I of
                               true -> {Left, Right};
                               false -> {Right, Left}   % I = n-1: fork 0 first
                           end,
         spawn_link(fun() -> philosopher(I, First, Second, M, 0, Parent) end)
     end || I <- lists:seq(0, N - 1)],
    Meals = [receive {meals, I, K} -> K end || I <- lists:seq(0, N - 1)],
    %% Every fork back on the table: a fork answers only once its last release is handled.
    Counts = [fork_counts(Fork) || Fork <- tuple_to_list(Forks)],
    T1 = now_ns(),
    Uses = lists:sum([U || {U, _} <- Counts]),
    Overlaps = lists:sum([O || {_, O} <- Counts]),
    Result = io_lib:format("meals=~b fork_uses=~b overlaps=~b", [lists:sum(Meals), Uses, Overlaps]),
    {T1 - T0, lists:flatten(Result), [{min_meals, lists:min(Meals)}, {max_meals, lists:max(Meals)}]}.

%% K meals left; Meals is the philosopher's own counter, reported to the parent at the end.
philosopher(I, _First, _Second, 0, Meals, Parent) -> Parent ! {meals, I, Meals};
philosopher(I, First, Second, K, Meals, Parent) ->
    First ! {take, self()},
    receive {granted, First} -> ok end,
    Second ! {take, self()},
    receive {granted, Second} -> ok end,
    Eaten = Meals + 1,                          % eat, holding both
    First ! {release, self()},
    Second ! {release, self()},
    philosopher(I, First, Second, K - 1, Eaten, Parent).

%% A fork on the table, linked to the caller.
start_fork() -> spawn_link(fun() -> fork(none, queue:new(), 0, 0) end).

%% Its {Uses, Overlaps}, once it lies on the table; the fork then ends.
fork_counts(Fork) ->
    Fork ! {counts, self()},
    receive {fork_counts, Fork, Uses, Overlaps} -> {Uses, Overlaps} end.

%% Holder: the philosopher eating with this fork, or none. Waiting: the philosophers that asked
%% while it was held, oldest first. Only this process reads or writes these fields.
fork(Holder, Waiting, Uses, Overlaps) ->
    receive
        {take, Pid} when Holder =:= none ->
            grant(Pid, Holder, Waiting, Uses, Overlaps);
        {take, Pid} ->
            fork(Holder, queue:in(Pid, Waiting), Uses, Overlaps);
        {release, Holder} ->
            %% The use is counted as the holder hands the fork back (its meal is over).
            case queue:out(Waiting) of
                {{value, Next}, Rest} -> grant(Next, none, Rest, Uses + 1, Overlaps);
                {empty, _} -> fork(none, Waiting, Uses + 1, Overlaps)
            end;
        {release, _NotHolder} ->
            %% Only the holder may hand a fork back: anything else is a broken protocol.
            fork(Holder, Waiting, Uses, Overlaps + 1);
        {counts, From} when Holder =:= none ->
            %% A release still in flight comes from the holder, so a fork with none has none
            %% pending (messages from different senders are not ordered: the guard waits for it).
            From ! {fork_counts, self(), Uses, Overlaps}
    end.

%% The fork takes Pid as its holder: a take that finds it held counts an overlap.
grant(Pid, Holder, Waiting, Uses, Overlaps) ->
    Pid ! {granted, self()},
    Overlaps1 = case Holder of
                    none -> Overlaps;
                    _ -> Overlaps + 1
                end,
    fork(Pid, Waiting, Uses, Overlaps1).
