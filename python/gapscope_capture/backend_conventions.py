"""The backend conventions the exporter shares with Gapscope's core (core/backends/).

Plain constants, no torch: a core test (tests/core/backend_conventions_tests.cpp)
reads this file and checks each value against core's table, so that the two
languages cannot drift apart (issue 57).
"""

# ExecuTorch's Qualcomm backend: its delegate name in the ETRecord
# (BackendConventions::backend) ...
QNN_BACKEND = "QnnBackend"
# ... the ETRecord graph its debug handles belong to
# (QNNIntermediateDebugger.reference_graph_name; BackendConventions::reference_graph) ...
QNN_REFERENCE_GRAPH = "edge_after_transform/forward"
# ... and the exporter's function that captures it (BackendConventions::capture_hint).
QNN_CAPTURE_FUNCTION = "gapscope_capture.capture.capture_from_qnn_debugger"
