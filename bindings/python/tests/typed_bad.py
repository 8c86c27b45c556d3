"""Must fail mypy --strict: a cordon option positionally, a wrong type."""
import cordon

cordon.run(["true"], "/home")
cordon.run(["true"], network=3)
