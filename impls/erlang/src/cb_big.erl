%% big: many-to-many ping/pong among N worker processes in neighbourhoods of H, with a sink
%% process that counts the workers' exits (big.md).
%%
%% One Erlang process per worker. A ping carries the pinger's local id and pid ({ping, J, Pid},
%% as BenchErl's {ping, self()}), and the pong goes straight back to that pid carrying the
%% replier's local id, which the pinger checks against the target it drew. The neighbourhood
%% table is used to find the process to ping, from a per-worker copy of the table:
%%   shape processes: the table is an Erlang list, walked with lists:nth/2 to the wanted
%%                    position (the thesis' modified BenchErl program: a per-worker neighbour
%%                    list, its "lacklustre" list traversal included);
%%   shape tuple:     the table is a tuple, read with element/2 in constant time
%%                    (still one copy per worker: Erlang processes share no heap).
-module(cb_big).
-export([iteration/4, worker/5, sink/2]).

-define(MASK32, 16#FFFFFFFF).

iteration(Shape, N, P, H) ->
    Parent = self(),
    T0 = erlang:monotonic_time(nanosecond),
    Sink = spawn_link(?MODULE, sink, [N, Parent]),
    Workers = spawn_workers(0, N, H, P, Sink, Parent, []),
    wire(Shape, Workers, H),
    [W ! {pong, start} || W <- Workers],
    receive
        {big_done, Sink} -> ok;
        {big_fail, What} -> exit({wrong_pinger, What})
    end,
    T1 = erlang:monotonic_time(nanosecond),
    %% Quiescent now: ask every worker for its counters, which also ends it.
    [W ! {report, Parent} || W <- Workers],
    Counts = [receive {counts, W, Pi, Po} -> {Pi, Po} end || W <- Workers],
    {Msgs, Sum, _, Min, Max} =
        lists:foldl(fun({Pi, Po}, {M, S, Idx, Mn, Mx}) ->
                            {M + Pi + Po, (S + Pi * (Idx + 1)) band 16#FFFFFFFFFFFFFFFF, Idx + 1,
                             min(Mn, Pi), max(Mx, Pi)}
                    end, {0, 0, 0, infinity, 0}, Counts),
    Result = io_lib:format("messages=~b checksum=~b", [Msgs, Sum]),
    {T1 - T0, lists:flatten(Result), [{min_recv, Min}, {max_recv, Max}]}.

%% Workers w = 0..N-1; worker w has local id j = w rem H in neighbourhood w div H.
spawn_workers(W, N, _H, _P, _Sink, _Parent, Acc) when W =:= N -> lists:reverse(Acc);
spawn_workers(W, N, H, P, Sink, Parent, Acc) ->
    Pid = spawn_link(?MODULE, worker, [W, W rem H, P, Sink, Parent]),
    spawn_workers(W + 1, N, H, P, Sink, Parent, [Pid | Acc]).

%% Send each worker its neighbourhood's table: the pids of workers g*H .. min(N,(g+1)*H)-1.
wire(_Shape, [], _H) -> ok;
wire(Shape, Workers, H) ->
    {Hood, Rest} = take(H, Workers, []),
    Table = case Shape of
                processes -> Hood;
                tuple -> list_to_tuple(Hood)
            end,
    Msg = {table, Table, length(Hood)},
    [W ! Msg || W <- Hood],
    wire(Shape, Rest, H).

take(0, Rest, Acc) -> {lists:reverse(Acc), Rest};
take(_, [], Acc) -> {lists:reverse(Acc), []};
take(K, [X | Rest], Acc) -> take(K - 1, Rest, [X | Acc]).

%% A worker waits for its table (selectively: nothing else is handled before it), then runs.
worker(W, J, P, Sink, Parent) ->
    receive
        {table, Table, S} ->
            %% rng seeded with w; expected = START; sent = pingsRecv = pongsRecv = 0
            loop(W, J, P, S, Table, Sink, Parent, W, start, 0, 0, 0)
    end.

loop(W, J, P, S, Table, Sink, Parent, Rng, Expected, Sent, PingsR, PongsR) ->
    receive
        {ping, _From, Pinger} ->
            Pinger ! {pong, J},
            loop(W, J, P, S, Table, Sink, Parent, Rng, Expected, Sent, PingsR + 1, PongsR);
        {pong, From} when From =:= Expected ->
            PongsR1 = case From of
                          start -> PongsR;
                          _ -> PongsR + 1
                      end,
            case Sent of
                P ->
                    Sink ! worker_exit,
                    loop(W, J, P, S, Table, Sink, Parent, Rng, Expected, Sent, PingsR, PongsR1);
                _ ->
                    Rng1 = (1664525 * Rng + 1013904223) band ?MASK32,
                    T = Rng1 rem S,                  % may be the worker itself
                    lookup(T, Table) ! {ping, J, self()},
                    loop(W, J, P, S, Table, Sink, Parent, Rng1, T, Sent + 1, PingsR, PongsR1)
            end;
        {pong, From} ->
            Parent ! {big_fail, {worker, W, expected, Expected, got, From}},
            loop(W, J, P, S, Table, Sink, Parent, Rng, Expected, Sent, PingsR, PongsR);
        {report, To} ->
            To ! {counts, self(), PingsR, PongsR}
    end.

lookup(T, Table) when is_tuple(Table) -> element(T + 1, Table);
lookup(T, Table) -> lists:nth(T + 1, Table).       % walks the list: O(T)

sink(0, Parent) -> Parent ! {big_done, self()};
sink(K, Parent) ->
    receive worker_exit -> sink(K - 1, Parent) end.
