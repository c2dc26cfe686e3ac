# Graphene's offline schedules of a trace's DAGs, each alone (bench/sim-graphene.sh "alone").
noinst_PROGRAMS += bench/graphene-offline
bench_graphene_offline_SOURCES = bench/graphene-offline.c
bench_graphene_offline_LDADD = sim/libebb-sim.a $(EBB_POLICY_LIBS) $(JSONC_LIBS)
