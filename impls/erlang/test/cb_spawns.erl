%% Test helper shared by the kernels' tests: how many processes a function spawns, counted by
%% tracing a fresh process that runs it (EUnit finds no tests here).
-module(cb_spawns).
-export([count/1]).

count(Fun) ->
    Go = make_ref(),
    Parent = self(),
    {Pid, Ref} = spawn_monitor(fun() -> receive Go -> ok end, Fun(), Parent ! {done, self()} end),
    1 = erlang:trace(Pid, true, [procs]),
    Pid ! Go,
    receive {done, Pid} -> ok end,
    receive {'DOWN', Ref, process, Pid, _} -> ok end,
    erlang:trace_delivered(Pid),
    receive {trace_delivered, Pid, _} -> ok end,
    spawned(Pid, 0).

spawned(Pid, K) ->
    receive
        {trace, Pid, spawn, _, _} -> spawned(Pid, K + 1);
        {trace, Pid, _, _} -> spawned(Pid, K);
        {trace, Pid, _, _, _} -> spawned(Pid, K)
    after 0 -> K
    end.
